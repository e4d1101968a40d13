//! Serving an axum app over HTTP/1.1 for the two servers research-tui runs: the demo agent and the
//! recording proxy. `axum::serve` sets no timer, so it held half-open connections for ever; here a
//! connection whose request head has not fully arrived within a timeout is closed.

use std::time::Duration;

use axum::Router;

/// How long a connection may take to send a request's head (also while idle between requests).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Accept connections and serve `app` on each, closing a connection whose request head has not
/// fully arrived within `header_timeout`. Each socket sets TCP_NODELAY: a frame goes out when it is
/// written, not after the client's delayed ACK (Nagle held each stream's first chunk ~40 ms).
pub async fn serve(listener: tokio::net::TcpListener, app: Router, header_timeout: Duration) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors, or a connection reset while queued: try again shortly.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout);
            // A client that goes away, or times out, ends only its own connection.
            let _ = builder
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
