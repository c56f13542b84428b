//! Webhook deliveries: the claim of due ones and a clock that steps back.

use super::*;

mod claim_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::auth::Environment;
    use crate::{Config, MemoryStore, Service, Store};

    fn delivery(id: &str, due: i64) -> Delivery {
        Delivery {
            id: id.into(),
            account_id: "acct".into(),
            environment: Environment::Sandbox,
            webhook_id: "wh_1".into(),
            url: "https://example.com/hook".into(),
            event_id: format!("evt_{id}"),
            headers: Vec::new(),
            body: "{}".into(),
            attempts: 0,
            next_attempt_at: due,
            first_due_at: due,
            status: "pending".into(),
            log: Vec::new(),
        }
    }

    #[test]
    fn a_claimed_delivery_is_leased_and_the_others_stay_due() {
        let mut svc = Service::new(MemoryStore::default(), Config::default());
        svc.store.insert_webhook(
            "acct",
            Environment::Sandbox,
            Webhook {
                id: "wh_1".into(),
                url: "https://example.com/hook".into(),
                events: vec![EventKind::FacturaApproved],
                description: None,
                created_at: "2025-01-01T00:00:00Z".into(),
                secret: Some("whsec_x".into()),
                previous_secret: None,
                previous_secret_expires_at: None,
            },
        );
        svc.store.put_delivery(delivery("dlv_a", 100));
        svc.store.put_delivery(delivery("dlv_b", 100));
        let taken = svc.claim_deliveries(200, 30, |d| d.id == "dlv_a");
        assert_eq!(taken.len(), 1);
        assert!(!taken[0].headers.is_empty(), "handed out signed");
        // Leased: not due again until the lease ends; the one not taken is still due.
        let due: Vec<String> = svc.due_deliveries(200).into_iter().map(|d| d.id).collect();
        assert_eq!(due, vec!["dlv_b".to_string()]);
        assert_eq!(svc.store.delivery("dlv_a").unwrap().next_attempt_at, 230);
        assert!(svc.store.delivery("dlv_a").unwrap().headers.is_empty());
        // A worker that never reports: after the lease, the same delivery (same event id) is due again.
        let again = svc.claim_deliveries(230, 30, |_| true);
        assert!(again
            .iter()
            .any(|d| d.id == "dlv_a" && d.event_id == "evt_dlv_a"));
        // A report after the lease counts from the first due time, as always.
        let d = svc
            .report_attempt(
                "dlv_a",
                Attempt {
                    at: 231,
                    status: Some(500),
                    error: Some("http_status".into()),
                    duration_ms: 1,
                },
            )
            .unwrap();
        assert_eq!(d.next_attempt_at, 100 + RETRY_SCHEDULE[0]);
    }
}

mod clock_tests {
    use super::*;
    use crate::auth::Environment;

    fn delivery(first_due_at: i64) -> Delivery {
        Delivery {
            id: "dlv_1".into(),
            account_id: "acct_1".into(),
            environment: Environment::Sandbox,
            webhook_id: "wh_1".into(),
            url: "https://example.com/hook".into(),
            event_id: "evt_1".into(),
            headers: Vec::new(),
            body: "{}".into(),
            attempts: 0,
            next_attempt_at: first_due_at,
            first_due_at,
            status: "pending".into(),
            log: Vec::new(),
        }
    }

    #[test]
    fn a_clock_stepping_back_never_holds_a_delivery() {
        // New: due at once, whatever the clock says.
        let mut d = delivery(10_000);
        assert!(is_due(&d, 10_000));
        assert!(is_due(&d, 10_000 - 3600));
        // One failed attempt at 10 000, retry at +60 s: not due before, due after.
        d.attempts = 1;
        d.next_attempt_at = 10_060;
        d.log.push(Attempt {
            at: 10_000,
            status: None,
            error: Some("connect".into()),
            duration_ms: 1,
        });
        assert!(!is_due(&d, 10_030));
        assert!(is_due(&d, 10_060));
        // The clock stepped back an hour: due once (the wait started at a time not reached yet) ...
        assert!(is_due(&d, 10_000 - 3600));
        // ... and once that attempt is logged, the back-off counts again.
        d.log.push(Attempt {
            at: 10_000 - 3600,
            status: None,
            error: Some("connect".into()),
            duration_ms: 1,
        });
        d.next_attempt_at = 10_300;
        assert!(!is_due(&d, 10_000 - 3590));
    }
}
