//! Numbers and labels as the chart displays write them: `$66.8B`, `62.1%`, `1,250`.

use serde_json::Value;

/// `value` with its axis unit: a unit starting with `$` (or `€`, `£`) goes in front
/// (`$66.8B`), `%` and `x` (a multiple) right after, any other unit after a space (`12 GW`). At most three significant
/// digits after the point, trailing zeros dropped; thousands grouped.
pub fn format_value(value: f64, unit: Option<&str>) -> String {
    let number = compact_number(value.abs());
    let sign = if value < 0.0 { "-" } else { "" };
    match unit.map(str::trim).filter(|u| !u.is_empty()) {
        None => format!("{sign}{number}"),
        Some(unit @ ("%" | "x" | "×")) => format!("{sign}{number}{unit}"),
        Some(unit) => match unit.chars().next() {
            Some(c @ ('$' | '€' | '£' | '¥')) => {
                format!("{sign}{c}{number}{}", &unit[c.len_utf8()..])
            }
            _ => format!("{sign}{number} {unit}"),
        },
    }
}

fn compact_number(value: f64) -> String {
    if !value.is_finite() {
        return "?".into();
    }
    let decimals = match value {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        _ => 3,
    };
    let text = format!("{value:.decimals$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    };
    group_thousands(&text)
}

fn group_thousands(text: &str) -> String {
    let (int, frac) = text
        .split_once('.')
        .map_or((text, None), |(i, f)| (i, Some(f)));
    if int.len() <= 4 {
        return text.to_owned();
    }
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match frac {
        Some(frac) => format!("{grouped}.{frac}"),
        None => grouped,
    }
}

/// A data value as a category label: strings as they are, whole numbers without `.0`.
pub fn label_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        },
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

/// A data value as a number: JSON numbers, and strings that hold one (Vega-Lite parses those).
pub(super) fn number_of(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().replace(',', "").parse().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// The unit an axis title names in a trailing `(…)` or `[…]`: `Revenue ($B)` → `$B`.
pub(super) fn unit_in_title(title: &str) -> Option<String> {
    let title = title.trim_end();
    let (open, close) = match title.chars().last()? {
        ')' => ('(', ')'),
        ']' => ('[', ']'),
        _ => return None,
    };
    let start = title.rfind(open)?;
    let unit = title[start + 1..title.len() - close.len_utf8()].trim();
    (!unit.is_empty() && unit.chars().count() <= 12).then(|| unit.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_carry_their_unit_where_a_reader_expects_it() {
        assert_eq!(format_value(66.8, Some("$B")), "$66.8B");
        assert_eq!(format_value(-2.5, Some("$B")), "-$2.5B");
        assert_eq!(format_value(62.14, Some("%")), "62.1%");
        assert_eq!(format_value(12.0, Some("GW")), "12 GW");
        assert_eq!(format_value(33.0, Some("x")), "33x");
        assert_eq!(format_value(1250.0, None), "1250");
        assert_eq!(format_value(125_000.0, None), "125,000");
        assert_eq!(format_value(0.4567, None), "0.457");
        assert_eq!(format_value(f64::NAN, None), "?");
    }

    #[test]
    fn a_unit_is_read_from_the_end_of_an_axis_title() {
        assert_eq!(unit_in_title("Revenue ($B)").as_deref(), Some("$B"));
        assert_eq!(unit_in_title("Margin [%]").as_deref(), Some("%"));
        assert_eq!(unit_in_title("Revenue"), None);
        assert_eq!(unit_in_title("x ()"), None);
    }
}
