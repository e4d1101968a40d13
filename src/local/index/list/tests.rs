use super::*;

fn stamp() -> MetaStamp {
    MetaStamp {
        ino: 11,
        size: 12,
        mtime_ns: -13,
    }
}

/// Metas with awkward text and every optional part a row may show.
fn awkward() -> Vec<SessionMeta> {
    let turn = |question: &str, status: &str, extra: serde_json::Value| {
        let mut turn = serde_json::json!({"question": question, "started_at": "t",
            "ended_at": "t", "from_checkpoint_id": null, "checkpoint_id": "ck\\1\tx",
            "status": status, "stream_file": "turn-001.sse"});
        if let (Some(turn), Some(extra)) = (turn.as_object_mut(), extra.as_object()) {
            turn.extend(extra.clone());
        }
        turn
    };
    let meta = |turns: Vec<serde_json::Value>, extra: serde_json::Value| -> SessionMeta {
        let mut meta = serde_json::json!({
            "id": "20260101-000000-0001", "created_at": "a", "updated_at": "b\tc",
            "endpoint": "research-agent", "provider": "xai\\", "base_url": "u",
            "chat_id": null, "execution_id": null, "turns": turns});
        if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
            meta.extend(extra.clone());
        }
        serde_json::from_value(meta).unwrap()
    };
    let none = serde_json::json!({});
    vec![
        meta(vec![], none.clone()),
        meta(
            vec![turn(
                "First\tquestion\nsecond line é",
                "complete",
                none.clone(),
            )],
            none.clone(),
        ),
        meta(
            vec![
                turn("One", "complete", none.clone()),
                turn("Two", "cut", serde_json::json!({"not_saved": "left out"})),
            ],
            none.clone(),
        ),
        meta(
            vec![turn("Q", "complete", none.clone())],
            serde_json::json!({"comparison": "cmp\t1"}),
        ),
        meta(
            vec![turn("Q", "error", none.clone())],
            serde_json::json!({"branched_from": "other\nid"}),
        ),
    ]
}

#[test]
fn a_line_reads_back_as_the_row_and_meta_read_from_meta_json() {
    for meta in awkward() {
        let text = line(&meta, stamp()).unwrap();
        assert_eq!(text.matches('\n').count(), 1, "{text}");
        let listed = Listed::parse(text.trim_end_matches('\n').as_bytes()).unwrap();
        assert_eq!(listed.stamp, stamp());
        assert_eq!(listed.meta().unwrap(), meta);
        for json in [false, true] {
            assert_eq!(
                Row::of_listed(&listed, json).unwrap(),
                Row::of(&meta, json),
                "{text}"
            );
        }
    }
}

#[test]
fn a_session_with_a_turn_streaming_gets_no_line() {
    let mut meta = awkward().remove(1);
    meta.turns[0].status = TurnStatus::Streaming;
    assert!(line(&meta, stamp()).is_none());
}

#[test]
fn a_line_cut_short_glued_or_of_another_version_is_not_taken() {
    let meta = awkward().remove(3);
    let text = line(&meta, stamp()).unwrap();
    let text = text.trim_end_matches('\n');
    for cut in [1, text.len() / 2, text.len() - 1] {
        assert!(Listed::parse(&text.as_bytes()[..cut]).is_none(), "{cut}");
    }
    let glued = format!("{text}{text}");
    assert!(Listed::parse(glued.as_bytes()).is_none());
    let body = text.rsplit_once('\t').unwrap().0;
    let rest = body.split_once('\t').unwrap().1;
    for tag in [
        format!("{TAG}.{}", VERSION + 1),
        TAG.to_string(),
        "rt1.1".to_string(),
    ] {
        let other = format!("{tag}\t{rest}");
        let other = format!("{other}\t{}", other.len());
        assert!(Listed::parse(other.as_bytes()).is_none(), "{tag}");
    }
}

#[test]
fn sorting_by_key_orders_as_comparing_the_times_and_ids_does() {
    // Times sharing long prefixes (beyond the key), prefixes of each other, NULs, equal times.
    let long = "2026-01-01T00:00:00.000000000";
    let mut times: Vec<String> = vec![
        String::new(),
        "a".into(),
        "a\0".into(),
        "a\0\0".into(),
        "a\u{1}".into(),
        long.into(),
        format!("{long}1"),
        format!("{long}0"),
        format!("{long}\0"),
        "2026-01-01T00:00:00Z".into(),
        "2026-01-01T00:00:00Zé".into(),
        "2025-12-31T23:59:59Z".into(),
    ];
    times.extend(times.clone());
    let mut items: Vec<(String, String)> = Vec::new();
    let mut seed = 7u64;
    for (n, time) in times.iter().enumerate() {
        for k in 0..3 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            items.push((time.clone(), format!("{}-{n}-{k}", seed >> 60)));
        }
    }
    let mut expected = items.clone();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    assert_eq!(newest(items, |i| &i.0, |i| &i.1), expected);
}
