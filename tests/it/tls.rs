//! HTTPS with the TLS stack this build uses (rustls on the `ring` provider, installed by the app's
//! one client builder): a client made the way the app makes them opens a real TLS handshake.

use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;

use crate::support;

#[tokio::test]
async fn an_https_request_opens_a_tls_handshake_instead_of_panicking_for_a_provider() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // The server reads what the client sends first, then hangs up without answering TLS.
    let server = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut hello = vec![0u8; 5];
        socket.read_exact(&mut hello).await.unwrap();
        hello
    });
    let result = support::http()
        .get(format!("https://127.0.0.1:{}/", addr.port()))
        .send()
        .await;
    let hello = server.await.unwrap();
    // A TLS record header: content type 22 (handshake), protocol version 3.x (a ClientHello).
    assert_eq!(hello[0], 0x16, "a TLS handshake record, got {hello:?}");
    assert_eq!(hello[1], 0x03, "TLS 1.x record version, got {hello:?}");
    let error = result.expect_err("the server never completes the handshake");
    assert!(error.is_connect(), "a connection error: {error:?}");
}
