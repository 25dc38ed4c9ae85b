//! The transforms' caches in a `PostgresDatabaseDatastore` (feature `postgres`): a table
//! per collection, named as the collection, with the columns the transforms define
//! (`cache_key`, `cache_content`, `created_at`, `last_used_at`, and `prefix_size` for a
//! conversation summary). The tables are the user's to create, as for wayflowcore. One
//! connection per database, kept by the runtime and opened again when it broke. TLS as
//! libpq's `sslmode` asks for it ([`tls`]): `allow` tries without TLS, then with it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Mutex;
use tokio_postgres::config::SslMode as PgSslMode;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{Client, NoTls, Socket};

use crate::error_chain;
use crate::transform::{CachePlan, Entry, PgConfig, SslMode, now};

mod tls;

/// The open connections, by database.
#[derive(Default)]
pub(crate) struct Postgres {
    clients: Mutex<HashMap<String, Arc<Client>>>,
}

/// What a connection is kept under: one per database, role and way of using TLS.
fn key(config: &PgConfig) -> String {
    let tls = &config.tls;
    format!(
        "{}:{}/{} {} {} {:?} {:?} {:?}",
        config.host,
        config.port,
        config.dbname,
        config.user,
        tls::mode_name(tls.mode),
        tls.rootcert,
        tls.cert,
        tls.crl
    )
}

/// Connects, and drives the connection in a task of its own.
async fn open<T>(pg: &tokio_postgres::Config, tls: T) -> Result<Client, tokio_postgres::Error>
where
    T: MakeTlsConnect<Socket>,
    T::Stream: Send + 'static,
{
    let (client, connection) = pg.connect(tls).await?;
    tokio::spawn(async move {
        // the connection ends when the client is dropped, or on an error the next query
        // reports
        let _ = connection.await;
    });
    Ok(client)
}

impl Postgres {
    async fn client(&self, config: &PgConfig, fresh: bool) -> Result<Arc<Client>, String> {
        let what = format!("datastore `{}`", config.name);
        let mut clients = self.clients.lock().await;
        if !fresh
            && let Some(client) = clients.get(&key(config))
            && !client.is_closed()
        {
            return Ok(Arc::clone(client));
        }
        let mut pg = tokio_postgres::Config::new();
        pg.host(&config.host)
            .port(config.port)
            .user(&config.user)
            .password(&config.password)
            .dbname(&config.dbname)
            .connect_timeout(Duration::from_secs(10));
        let failed = |why: String| {
            let mode = tls::mode_name(config.tls.mode);
            format!(
                "{what} at {}:{} (sslmode {mode}) could not be reached: {why}",
                config.host, config.port
            )
        };
        let mut plain = pg.clone();
        plain.ssl_mode(PgSslMode::Disable);
        let with_tls = |pg_mode| {
            let mut pg = pg.clone();
            pg.ssl_mode(pg_mode);
            let rustls = tls::client_config(&config.tls, &what);
            async move { Ok::<_, String>(open(&pg, tls::Rustls(rustls?)).await) }
        };
        let client = match config.tls.mode {
            SslMode::Disable => open(&plain, NoTls)
                .await
                .map_err(|e| failed(error_chain(&e)))?,
            // without TLS first, then with it, as libpq does
            SslMode::Allow => match open(&plain, NoTls).await {
                Ok(client) => client,
                Err(plain) => with_tls(PgSslMode::Require).await?.map_err(|e| {
                    failed(format!(
                        "without TLS: {}; with TLS: {}",
                        error_chain(&plain),
                        error_chain(&e)
                    ))
                })?,
            },
            SslMode::Prefer => with_tls(PgSslMode::Prefer)
                .await?
                .map_err(|e| failed(error_chain(&e)))?,
            _ => with_tls(PgSslMode::Require)
                .await?
                .map_err(|e| failed(error_chain(&e)))?,
        };
        let client = Arc::new(client);
        clients.insert(key(config), Arc::clone(&client));
        Ok(client)
    }

    /// The summary cached under `cache_key`, unless it outlived the cache's lifetime.
    pub async fn get(
        &self,
        config: &PgConfig,
        cache: &CachePlan,
        cache_key: &str,
    ) -> Result<Option<String>, String> {
        let table = &cache.collection;
        let select = format!(
            "SELECT cache_content, created_at::float8 FROM \"{table}\" WHERE cache_key = $1::text"
        );
        let mut fresh = false;
        let rows = loop {
            let client = self.client(config, fresh).await?;
            match client.query(&select, &[&cache_key]).await {
                Ok(rows) => break rows,
                Err(_) if !fresh && client.is_closed() => fresh = true,
                Err(e) => return Err(format!("datastore `{}`: {e}", config.name)),
            }
        };
        let client = self.client(config, false).await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let content: String = row.get(0);
        let created_at: f64 = row.get(1);
        let now = now();
        if cache.lifetime.is_some_and(|l| now - created_at > l) {
            let delete = format!("DELETE FROM \"{table}\" WHERE cache_key = $1::text");
            client
                .execute(&delete, &[&cache_key])
                .await
                .map_err(|e| format!("datastore `{}`: {e}", config.name))?;
            return Ok(None);
        }
        let touch =
            format!("UPDATE \"{table}\" SET last_used_at = $2::float8 WHERE cache_key = $1::text");
        client
            .execute(&touch, &[&cache_key, &now])
            .await
            .map_err(|e| format!("datastore `{}`: {e}", config.name))?;
        Ok(Some(content))
    }

    /// Keeps a summary, then forgets the least recently used past the cache's size.
    pub async fn put(
        &self,
        config: &PgConfig,
        cache: &CachePlan,
        cache_key: String,
        entry: Entry,
    ) -> Result<(), String> {
        let table = &cache.collection;
        let failed = |e: tokio_postgres::Error| format!("datastore `{}`: {e}", config.name);
        let client = self.client(config, false).await?;
        let delete = format!("DELETE FROM \"{table}\" WHERE cache_key = $1::text");
        client
            .execute(&delete, &[&cache_key])
            .await
            .map_err(failed)?;
        let mut columns = "cache_key, cache_content, created_at, last_used_at".to_owned();
        let mut values = "$1::text, $2::text, $3::float8, $4::float8".to_owned();
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
            &cache_key,
            &entry.content,
            &entry.created_at,
            &entry.last_used_at,
        ];
        if let Some(prefix) = &entry.prefix_size {
            columns.push_str(", prefix_size");
            values.push_str(", $5::int8");
            params.push(prefix);
        }
        let insert = format!("INSERT INTO \"{table}\" ({columns}) VALUES ({values})");
        client.execute(&insert, &params).await.map_err(failed)?;
        if let Some(max) = cache.max_size {
            let max = i64::try_from(max).unwrap_or(i64::MAX);
            let evict = format!(
                "DELETE FROM \"{table}\" WHERE cache_key IN \
                 (SELECT cache_key FROM \"{table}\" ORDER BY last_used_at DESC OFFSET $1::int8)"
            );
            client.execute(&evict, &[&max]).await.map_err(failed)?;
        }
        Ok(())
    }
}
