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

/// Install `ring` as rustls's process default, once. Another provider installed first (by an
/// embedding program) is kept: `install_default` then fails harmlessly and that one serves.
pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
