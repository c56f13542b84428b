//! The background task that advances the simulated SIFEN and sweeps the idempotency keys.

use crate::engine::{lock, Engine};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// At most how many batches of the simulated SIFEN ([`kuatia_service::TICK_BATCH`] moves each) the tick loop runs
/// per period.
const DRAIN_BATCHES: usize = 256;

/// Every how many tick periods the simulated SIFEN looks at every invoice in flight, not only its schedule, when other
/// engines or nodes share the store (PostgreSQL).
pub(crate) const FULL_TICK_EVERY: u32 = 10;

/// Every how many tick periods (and at the first) the stored idempotent answers past their window are dropped.
const SWEEP_EVERY: u32 = 10;

/// Advances the simulated SIFEN every `period`, and sweeps the idempotency keys every [`SWEEP_EVERY`] periods.
pub(crate) async fn tick_loop(
    engine: Arc<Mutex<Engine>>,
    period: Duration,
    full_every: Option<u32>,
    mut stop: watch::Receiver<bool>,
) {
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut round = 0u32;
    loop {
        tokio::select! {
            _ = interval.tick() => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        let drain = engine.clone();
        // What this engine scheduled, every period; everything in the store (other engines' and nodes' invoices)
        // at the first period and then every `full_every` periods, so the walk over every invoice in flight stays rare.
        let full = round == 0 || full_every.is_some_and(|n| round.is_multiple_of(n));
        let sweep = round.is_multiple_of(SWEEP_EVERY);
        round = round.wrapping_add(1);
        let r = tokio::task::spawn_blocking(move || {
            // Everything due, a batch per transaction (the lock is released between them, so requests interleave):
            // without requests this loop is what moves the simulated SIFEN.
            for _ in 0..DRAIN_BATCHES {
                let more = lock(&drain).transact(|svc, host| {
                    if full {
                        svc.tick(host)
                    } else {
                        svc.tick_due(host)
                    }
                    let now = kuatia_service::Host::now(host).unix_timestamp();
                    svc.tick_window().is_some_and(|(_, next)| next <= now)
                });
                if !more.map_err(|e| e.to_string())? || full {
                    break;
                }
            }
            Ok::<_, String>(())
        })
        .await;
        if let Ok(Err(e)) = r {
            tracing::error!(error = %e, "tick rolled back");
        }
        if sweep {
            sweep_idempotency(&engine).await;
        }
    }
}

/// The idempotency sweep (docs/operations.md, "Idempotency keys"): stored answers past their window, a batch per
/// transaction until none is left (the lock is released between them).
async fn sweep_idempotency(engine: &Arc<Mutex<Engine>>) {
    let engine = engine.clone();
    let r = tokio::task::spawn_blocking(move || loop {
        let more = lock(&engine).transact(|svc, host| {
            let now = kuatia_service::Host::now(host).unix_timestamp();
            svc.sweep_idempotency(now)
        });
        if !more.map_err(|e| e.to_string())? {
            return Ok::<_, String>(());
        }
    })
    .await;
    if let Ok(Err(e)) = r {
        tracing::error!(error = %e, "idempotency sweep rolled back");
    }
}
