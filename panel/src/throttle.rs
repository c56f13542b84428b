//! Sign-in throttling of the panel that an outsider cannot turn against an account (issue 34).
//!
//! Failures are counted by **source** (the client address the host saw, IPv6 by its /64), by **(account, source)**
//! and by **account**, in windows of [`THROTTLE_WINDOW`] seconds:
//! - a valid one-time link always works when presented, from any source: links are unguessable (256 bits), so a
//!   source that presents bogus ones is what gets refused (429 after [`MAX_SOURCE_FAILURES`] failures);
//! - a password is checked unless its own source is throttled: [`MAX_SOURCE_FAILURES`] failed sign-ins of the source
//!   (links and passwords, every account) or [`MAX_FAILURES`] wrong passwords of the source for that account. Someone
//!   else's failures never refuse a correct password;
//! - an account whose wrong passwords reach [`ACCOUNT_UNDER_ATTACK`] in a window (from many sources) only slows
//!   guessing down: each source then gets [`MAX_FAILURES_UNDER_ATTACK`] wrong passwords for it instead of
//!   [`MAX_FAILURES`]; a source without failures still signs in.
//!
//! The state is in memory, pure (the time comes in as an argument) and bounded: at most [`MAX_TRACKED`] entries per
//! table, expired windows dropped first and the oldest window after them. Clones share it, so a host with several
//! engines gives them one ([`crate::Panel`], cloned). Account ids are kept as their SHA-256, so
//! an unknown id costs as much as a known one and reveals nothing.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

/// Seconds over which failed sign-ins are counted.
pub const THROTTLE_WINDOW: i64 = 15 * 60;
/// Wrong passwords for one account from one source in a window before that source is refused for that account.
pub const MAX_FAILURES: u32 = 5;
/// Failed sign-ins (bogus links and wrong passwords, all accounts together) of one source in a window before that
/// source is refused (a valid link still works).
pub const MAX_SOURCE_FAILURES: u32 = 20;
/// Wrong passwords for one account (all sources together) in a window from which each source gets only
/// [`MAX_FAILURES_UNDER_ATTACK`] wrong passwords for it.
pub const ACCOUNT_UNDER_ATTACK: u32 = 20;
/// Wrong passwords for an account under attack from one source in a window before that source is refused for it.
pub const MAX_FAILURES_UNDER_ATTACK: u32 = 2;
/// Entries each table keeps at most.
pub const MAX_TRACKED: usize = 10_000;

/// Where a sign-in comes from: an IPv4 address, the /64 of an IPv6 one, or unknown (a host that passes no address:
/// all its clients are one source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Source(Option<IpAddr>);

impl Source {
    /// The source of a client address (IPv4-mapped IPv6 as IPv4; IPv6 by its /64, what one subscriber gets).
    pub(super) fn of(client: Option<IpAddr>) -> Source {
        Source(client.map(|ip| match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let mut o = v6.octets();
                    o[8..].fill(0);
                    IpAddr::V6(o.into())
                }
            },
            v4 => v4,
        }))
    }
}

/// An account id as the throttle keeps it.
pub(super) type AccountKey = [u8; 32];

/// The key of a submitted account id (known or not).
pub(super) fn account_key(account_id: &str) -> AccountKey {
    Sha256::digest(account_id.as_bytes()).into()
}

#[derive(Debug, Clone, Copy)]
struct Window {
    start: i64,
    failures: u32,
}

impl Window {
    fn live(&self, now: i64) -> bool {
        now < self.start.saturating_add(THROTTLE_WINDOW)
    }
}

/// Failures per key in the current window, at most [`MAX_TRACKED`] keys.
#[derive(Debug, Clone)]
struct Counters<K> {
    map: BTreeMap<K, Window>,
}

impl<K> Default for Counters<K> {
    fn default() -> Self {
        Counters {
            map: BTreeMap::new(),
        }
    }
}

impl<K: Ord + Clone> Counters<K> {
    /// Failures of `key` in its live window, and the second that window ends.
    fn get(&self, key: &K, now: i64) -> (u32, i64) {
        match self.map.get(key) {
            Some(w) if w.live(now) => (w.failures, w.start.saturating_add(THROTTLE_WINDOW)),
            _ => (0, now),
        }
    }

    fn fail(&mut self, key: K, now: i64) {
        if !self.map.contains_key(&key) && self.map.len() >= MAX_TRACKED {
            self.map.retain(|_, w| w.live(now));
            if self.map.len() >= MAX_TRACKED {
                let oldest = self
                    .map
                    .iter()
                    .min_by_key(|(_, w)| w.start)
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    self.map.remove(&k);
                }
            }
        }
        let w = self.map.entry(key).or_insert(Window {
            start: now,
            failures: 0,
        });
        if !w.live(now) {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures = w.failures.saturating_add(1);
    }

    fn clear(&mut self, key: &K) {
        self.map.remove(key);
    }

    fn len(&self) -> usize {
        self.map.len()
    }
}

/// The sign-in throttle of a [`crate::Panel`]; its clones share one state.
#[derive(Debug, Clone, Default)]
pub struct Throttles(Arc<Mutex<Tables>>);

#[derive(Debug, Default)]
struct Tables {
    sources: Counters<Source>,
    pairs: Counters<(AccountKey, Source)>,
    accounts: Counters<AccountKey>,
}

impl Tables {
    fn source_refused(&self, source: Source, now: i64) -> Option<i64> {
        let (n, until) = self.sources.get(&source, now);
        (n >= MAX_SOURCE_FAILURES).then_some(until)
    }
}

impl Throttles {
    fn tables(&self) -> MutexGuard<'_, Tables> {
        // Counters only: a panic half-way leaves at worst one count off.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `Some(second the refusal ends)` when `source` may not try anything now (its own failures).
    pub(super) fn source_refused(&self, source: Source, now: i64) -> Option<i64> {
        self.tables().source_refused(source, now)
    }

    /// `Some(second the refusal ends)` when `source` may not try a password for `account` now: its own failures for
    /// it (fewer allowed while the account is under attack), or its failures overall.
    pub(super) fn password_refused(
        &self,
        account: &AccountKey,
        source: Source,
        now: i64,
    ) -> Option<i64> {
        let t = self.tables();
        if let Some(until) = t.source_refused(source, now) {
            return Some(until);
        }
        let (total, _) = t.accounts.get(account, now);
        let max = if total >= ACCOUNT_UNDER_ATTACK {
            MAX_FAILURES_UNDER_ATTACK
        } else {
            MAX_FAILURES
        };
        let (n, until) = t.pairs.get(&(*account, source), now);
        (n >= max).then_some(until)
    }

    /// Counts a bogus link presented by `source`.
    pub(super) fn link_failed(&self, source: Source, now: i64) {
        self.tables().sources.fail(source, now);
    }

    /// Counts a wrong password for `account` from `source`.
    pub(super) fn password_failed(&self, account: AccountKey, source: Source, now: i64) {
        let mut t = self.tables();
        t.sources.fail(source, now);
        t.pairs.fail((account, source), now);
        t.accounts.fail(account, now);
    }

    /// Forgets the failures of `source` for `account` after a correct password.
    pub(super) fn password_ok(&self, account: &AccountKey, source: Source) {
        self.tables().pairs.clear(&(*account, source));
    }

    /// Entries kept, all tables together (tests of the bound).
    pub fn tracked(&self) -> usize {
        let t = self.tables();
        t.sources.len() + t.pairs.len() + t.accounts.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn v4(last: u8) -> Source {
        Source::of(Some(IpAddr::V4(Ipv4Addr::new(203, 0, 113, last))))
    }

    #[test]
    fn ipv6_sources_are_their_64_and_mapped_ipv4_is_ipv4() {
        let a: Ipv6Addr = "2001:db8:1:2:aaaa::1"
            .parse()
            .unwrap_or(Ipv6Addr::UNSPECIFIED);
        let b: Ipv6Addr = "2001:db8:1:2:bbbb::9"
            .parse()
            .unwrap_or(Ipv6Addr::UNSPECIFIED);
        let c: Ipv6Addr = "2001:db8:1:3::1".parse().unwrap_or(Ipv6Addr::UNSPECIFIED);
        assert_eq!(Source::of(Some(a.into())), Source::of(Some(b.into())));
        assert_ne!(Source::of(Some(a.into())), Source::of(Some(c.into())));
        let mapped = Ipv4Addr::new(203, 0, 113, 7).to_ipv6_mapped();
        assert_eq!(Source::of(Some(mapped.into())), v4(7));
    }

    #[test]
    fn one_sources_failures_never_refuse_another() {
        let t = Throttles::default();
        let acct = account_key("acct_x");
        for _ in 0..MAX_SOURCE_FAILURES {
            t.password_failed(acct, v4(1), 1000);
        }
        assert!(t.source_refused(v4(1), 1000).is_some());
        assert!(t.password_refused(&acct, v4(1), 1000).is_some());
        assert_eq!(t.source_refused(v4(2), 1000), None);
        assert_eq!(t.password_refused(&acct, v4(2), 1000), None);
        // The account is under attack: a source may now get 2 wrong passwords for it, not 5.
        t.password_failed(acct, v4(2), 1000);
        assert_eq!(t.password_refused(&acct, v4(2), 1000), None);
        t.password_failed(acct, v4(2), 1000);
        assert_eq!(
            t.password_refused(&acct, v4(2), 1000),
            Some(1000 + THROTTLE_WINDOW)
        );
        // The window ends.
        assert_eq!(
            t.password_refused(&acct, v4(1), 1000 + THROTTLE_WINDOW),
            None
        );
    }

    #[test]
    fn the_state_stays_bounded() {
        let t = Throttles::default();
        let acct = account_key("acct_x");
        for i in 0..(MAX_TRACKED as u32 + 50) {
            let ip = IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + i));
            t.password_failed(acct, Source::of(Some(ip)), 1000);
        }
        // Full of live windows: the oldest makes room.
        assert_eq!(t.tables().sources.len(), MAX_TRACKED);
        assert_eq!(t.tables().pairs.len(), MAX_TRACKED);
        assert_eq!(t.tables().accounts.len(), 1);
        assert_eq!(t.tracked(), 2 * MAX_TRACKED + 1);
        // Expired windows go first once a table is full.
        t.link_failed(v4(9), 1000 + THROTTLE_WINDOW);
        assert_eq!(t.tables().sources.len(), 1);
        // Clones share the state.
        let shared = t.clone();
        shared.link_failed(v4(10), 1000 + THROTTLE_WINDOW);
        assert_eq!(t.tables().sources.len(), 2);
    }
}
