//! TLS to PostgreSQL over rustls, as libpq's `sslmode` asks for it:
//!
//! - `prefer` and `require` encrypt; they check the server's certificate against certificate
//!   authorities only when some are given (`sslrootcert`, or libpq's default file
//!   `~/.postgresql/root.crt` when it exists), as libpq does;
//! - `verify-ca` checks that the certificate is signed by those authorities;
//! - `verify-full` checks that too, and that it is made out to the host connected to;
//! - a client certificate (`sslcert` and `sslkey`, or libpq's default files
//!   `~/.postgresql/postgresql.crt` and `.key` when they exist) is sent to a server that asks
//!   for one; `sslcrl` lists revoked certificates, for the modes that check.
//!
//! The crypto provider is the process's default when one is installed, else aws-lc-rs (the
//! one reqwest's rustls uses). No channel binding is offered: the server authenticates the
//! client without it, as libpq's `channel_binding=prefer` allows.

use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{
    CertificateDer, CertificateRevocationListDer, PrivateKeyDer, ServerName, UnixTime,
};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::Socket;
use tokio_postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect};

use crate::transform::{PgTls, SslMode};

/// libpq's default file `name` under `~/.postgresql` (`home` is the home folder), when it
/// exists.
fn default_file(home: Option<&Path>, name: &str) -> Option<PathBuf> {
    let path = home?.join(".postgresql").join(name);
    path.is_file().then_some(path)
}

/// The rustls configuration a datastore's TLS settings make (`what` names the datastore in
/// errors). Files are read now: one that is missing or holds no certificate is an error
/// naming the setting and the file.
pub(crate) fn client_config(tls: &PgTls, what: &str) -> Result<Arc<ClientConfig>, String> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    client_config_in(tls, what, home.as_deref())
}

/// [`client_config`], with libpq's default files under `home`.
fn client_config_in(
    tls: &PgTls,
    what: &str,
    home: Option<&Path>,
) -> Result<Arc<ClientConfig>, String> {
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    let rootcert = match &tls.rootcert {
        Some(path) => Some(PathBuf::from(path)),
        None => default_file(home, "root.crt"),
    };
    let signed_by = match (&rootcert, tls.mode) {
        (None, SslMode::VerifyCa | SslMode::VerifyFull) => {
            return Err(format!(
                "{what}: sslmode {} checks the server's certificate, and no certificate authority is given (sslrootcert, or ~/.postgresql/root.crt)",
                mode_name(tls.mode)
            ));
        }
        (None, _) => None,
        (Some(path), _) => {
            let mut roots = RootCertStore::empty();
            for cert in certificates(path, "sslrootcert", what)? {
                roots.add(cert).map_err(|e| {
                    format!(
                        "{what}: a certificate of sslrootcert `{}`: {e}",
                        path.display()
                    )
                })?;
            }
            let mut builder =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider));
            if let Some(crl) = &tls.crl {
                let crls = CertificateRevocationListDer::pem_file_iter(crl)
                    .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                    .map_err(|e| format!("{what}: sslcrl `{crl}`: {e}"))?;
                builder = builder.with_crls(crls);
            }
            Some(
                builder
                    .build()
                    .map_err(|e| format!("{what}: sslrootcert `{}`: {e}", path.display()))?,
            )
        }
    };
    let verifier = Arc::new(Verifier {
        provider: Arc::clone(&provider),
        signed_by,
        names: tls.mode == SslMode::VerifyFull,
    });
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("{what}: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let cert = match &tls.cert {
        Some(path) => Some(PathBuf::from(path)),
        None => default_file(home, "postgresql.crt"),
    };
    let config = match cert {
        None => builder.with_no_client_auth(),
        Some(cert) => {
            let key = match &tls.key {
                Some(path) => PathBuf::from(path),
                None => default_file(home, "postgresql.key").ok_or_else(|| {
                    format!(
                        "{what}: the client certificate `{}` has no key (sslkey, or ~/.postgresql/postgresql.key)",
                        cert.display()
                    )
                })?,
            };
            let chain = certificates(&cert, "sslcert", what)?;
            // the key file's name stays out of the message: sslkey is a secret
            let key =
                PrivateKeyDer::from_pem_file(&key).map_err(|e| format!("{what}: sslkey: {e}"))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("{what}: sslcert `{}` and sslkey: {e}", cert.display()))?
        }
    };
    Ok(Arc::new(config))
}

/// The certificates of a PEM file (at least one).
fn certificates(
    path: &Path,
    setting: &str,
    what: &str,
) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| format!("{what}: {setting} `{}`: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{what}: {setting} `{}` holds no PEM certificate",
            path.display()
        ));
    }
    Ok(certs)
}

/// The `sslmode` value of a mode.
pub(crate) fn mode_name(mode: SslMode) -> &'static str {
    match mode {
        SslMode::Disable => "disable",
        SslMode::Allow => "allow",
        SslMode::Prefer => "prefer",
        SslMode::Require => "require",
        SslMode::VerifyCa => "verify-ca",
        SslMode::VerifyFull => "verify-full",
    }
}

/// How the server's certificate is checked: not at all (`prefer` and `require` with no
/// certificate authority), signed by the given authorities (`verify-ca`, and `prefer` or
/// `require` with authorities), or also made out to the host (`verify-full`, `names`). The
/// handshake's signatures are checked whatever the mode.
#[derive(Debug)]
struct Verifier {
    provider: Arc<CryptoProvider>,
    signed_by: Option<Arc<WebPkiServerVerifier>>,
    names: bool,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(signed_by) = &self.signed_by else {
            return Ok(ServerCertVerified::assertion());
        };
        match signed_by.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            // the chain is checked before the name: a wrong name means a good chain
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !self.names => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// tokio-postgres' TLS hook on rustls.
#[derive(Clone)]
pub(crate) struct Rustls(pub Arc<ClientConfig>);

impl MakeTlsConnect<Socket> for Rustls {
    type Stream = Stream;
    type TlsConnect = Connect;
    type Error = rustls::pki_types::InvalidDnsNameError;

    fn make_tls_connect(&mut self, domain: &str) -> Result<Connect, Self::Error> {
        Ok(Connect {
            config: Arc::clone(&self.0),
            name: ServerName::try_from(domain.to_owned())?,
        })
    }
}

pub(crate) struct Connect {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
}

impl TlsConnect<Socket> for Connect {
    type Stream = Stream;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Stream>> + Send>>;

    fn connect(self, socket: Socket) -> Self::Future {
        Box::pin(async move {
            let connector = tokio_rustls::TlsConnector::from(self.config);
            Ok(Stream(connector.connect(self.name, socket).await?))
        })
    }
}

/// A TLS connection to the server.
pub(crate) struct Stream(tokio_rustls::client::TlsStream<Socket>);

impl AsyncRead for Stream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl tokio_postgres::tls::TlsStream for Stream {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate authority (P-256, valid until 2126), made with openssl for
    /// these tests; its key is not kept.
    const AUTHORITY: &str = "-----BEGIN CERTIFICATE-----\nMIIBnTCCAUOgAwIBAgIUZWtcslOUHTHD0tZfiXoGtmaEJgwwCgYIKoZIzj0EAwIw\nIzEhMB8GA1UEAwwYYWdlbnRzcGVjIHRlc3QgYXV0aG9yaXR5MCAXDTI2MTEyOTA2\nMTIxN1oYDzIxMjYxMTA1MDYxMjE3WjAjMSEwHwYDVQQDDBhhZ2VudHNwZWMgdGVz\ndCBhdXRob3JpdHkwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATh2GFsVGOv26di\notGZ4aeOQEdAO0B1x7LzW0Omhi9guTzoFSaEv3Jw7Xg7hWbbQrnlv2DmzbLb5nmm\n+7TWosrLo1MwUTAdBgNVHQ4EFgQUNj+dWQhBjeRgFzFnEyNU4Ww2yrMwHwYDVR0j\nBBgwFoAUNj+dWQhBjeRgFzFnEyNU4Ww2yrMwDwYDVR0TAQH/BAUwAwEB/zAKBggq\nhkjOPQQDAgNIADBFAiEA0ro5b0hrKHL0giIeMO6F+q3qO5efDAsf3EL0+O6lSncC\nIDaqFBRJKORAH9svs1mCdc7dK+CPvT6YgSO49QhW8tAr\n-----END CERTIFICATE-----\n";

    /// A folder of its own for a test, emptied.
    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("agentspec-pg-tls-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn tls(mode: SslMode) -> PgTls {
        PgTls {
            mode,
            ..PgTls::default()
        }
    }

    fn refused(tls: &PgTls, home: Option<&Path>) -> String {
        client_config_in(tls, "datastore `pg`", home).expect_err("refused")
    }

    #[test]
    fn require_and_prefer_need_no_file_and_the_verifying_modes_need_an_authority() {
        let home = folder("modes");
        for mode in [SslMode::Prefer, SslMode::Require] {
            client_config_in(&tls(mode), "datastore `pg`", Some(&home)).expect("no file needed");
        }
        for (mode, name) in [
            (SslMode::VerifyCa, "verify-ca"),
            (SslMode::VerifyFull, "verify-full"),
        ] {
            let message = refused(&tls(mode), Some(&home));
            assert_eq!(
                message,
                format!(
                    "datastore `pg`: sslmode {name} checks the server's certificate, and no certificate authority is given (sslrootcert, or ~/.postgresql/root.crt)"
                )
            );
        }
        // libpq's default file stands in for sslrootcert
        std::fs::create_dir_all(home.join(".postgresql")).unwrap();
        std::fs::write(home.join(".postgresql/root.crt"), AUTHORITY).unwrap();
        client_config_in(&tls(SslMode::VerifyFull), "datastore `pg`", Some(&home))
            .expect("the default authority");
        std::fs::remove_dir_all(home).unwrap();
    }

    #[test]
    fn a_missing_or_empty_file_is_named_with_its_setting() {
        let dir = folder("files");
        let missing = dir.join("missing.crt");
        let mut config = tls(SslMode::VerifyFull);
        config.rootcert = Some(missing.display().to_string());
        let message = refused(&config, None);
        assert!(
            message.starts_with(&format!(
                "datastore `pg`: sslrootcert `{}`: ",
                missing.display()
            )),
            "{message}"
        );
        let empty = dir.join("empty.crt");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        config.rootcert = Some(empty.display().to_string());
        assert_eq!(
            refused(&config, None),
            format!(
                "datastore `pg`: sslrootcert `{}` holds no PEM certificate",
                empty.display()
            )
        );
        let crl = dir.join("missing.crl");
        let authority = dir.join("ca.crt");
        std::fs::write(&authority, AUTHORITY).unwrap();
        config.rootcert = Some(authority.display().to_string());
        config.crl = Some(crl.display().to_string());
        let message = refused(&config, None);
        assert!(
            message.starts_with(&format!("datastore `pg`: sslcrl `{}`: ", crl.display())),
            "{message}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_client_certificate_needs_its_key_and_the_key_file_is_never_named() {
        let dir = folder("client");
        let cert = dir.join("client.crt");
        std::fs::write(&cert, AUTHORITY).unwrap();
        let mut config = tls(SslMode::Require);
        config.cert = Some(cert.display().to_string());
        assert_eq!(
            refused(&config, Some(&dir)),
            format!(
                "datastore `pg`: the client certificate `{}` has no key (sslkey, or ~/.postgresql/postgresql.key)",
                cert.display()
            )
        );
        // sslkey is a secret: where it is stays out of the message
        let key = dir.join("secret-place.key");
        config.key = Some(key.display().to_string());
        let message = refused(&config, Some(&dir));
        assert!(message.starts_with("datastore `pg`: sslkey: "), "{message}");
        assert!(!message.contains("secret-place"), "{message}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
