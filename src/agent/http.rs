//! The one place this program builds an HTTP client: every client (the agent client, the proxy's
//! upstream clients, the tests' and benches' own) starts from [`client_builder`], so the TLS crypto
//! provider is installed before any of them exists.
//!
//! TLS is rustls on the `ring` provider rather than reqwest's default aws-lc-rs, whose aws-lc-sys C
//! build made a fresh release build cost 1.20x the CPU time (docs/performance.md). What ring lacks:
//! the post-quantum hybrid key exchange (X25519MLKEM768); connections use X25519 or P-256/P-384.
//! reqwest is built with `rustls-no-provider`, so a client built before a provider is installed
//! would panic; going through this module makes that impossible. Certificates still come from the
//! operating system's store (rustls-platform-verifier).

use std::sync::Once;

/// A `reqwest` client builder on rustls with the `ring` provider installed process-wide.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder().tls_backend_rustls()
}

/// [`client_builder`] for a client that talks to `base_url` alone. One for plain `http://` on this
/// machine (the demo agent) loads no certificate roots: it never makes a TLS connection (it follows
/// no redirect), and reading the operating system's store — hundreds of files — was a large part of
/// the demo's first frame. Every other client verifies against the OS roots, as before.
pub fn client_builder_for(base_url: &str) -> reqwest::ClientBuilder {
    let base_url = base_url.trim();
    let plain_loopback = reqwest::Url::parse(base_url).is_ok_and(|url| url.scheme() == "http")
        && crate::agent::client::is_loopback(base_url);
    match plain_loopback {
        true => client_builder().tls_certs_only([]),
        false => client_builder(),
    }
}

/// Install `ring` as rustls's process default, once. Another provider installed first (by an
/// embedding program) is kept: `install_default` then fails harmlessly and that one serves.
pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
