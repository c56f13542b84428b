//! The webhook side of the store contract: webhooks, idempotent answers and deliveries (see [`super::run_all`]).

// Every path through the parent's imports, so that moving the folder changes only those.
use super::{
    expect, Attempt, Delivery, Environment, EventKind, HttpResponse, IdempotentReply, Store,
    Webhook, DELIVERY_BATCH,
};

fn webhook(id: &str, url: &str) -> Webhook {
    Webhook {
        id: id.into(),
        url: url.into(),
        events: vec![EventKind::FacturaApproved, EventKind::FacturaCancelled],
        description: Some(format!("hook {id}")),
        created_at: "2026-11-24T00:00:00Z".into(),
        secret: Some(format!("whsec_{id}")),
        previous_secret: None,
        previous_secret_expires_at: None,
    }
}

/// Webhooks: scoped by account and environment, listed in the order they were stored, secrets kept; an update or a
/// delete reaches only its own scope.
pub fn webhooks<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let (sb, prod) = (Environment::Sandbox, Environment::Production);
    let mut s = reopen(None);
    expect(s.webhooks("acct_a", sb).is_empty(), || {
        "a fresh store lists webhooks".into()
    })?;
    let (w2, w1, w3, w4) = (
        webhook("wh_2", "https://a.example/2"),
        webhook("wh_1", "https://a.example/1"),
        webhook("wh_3", "https://a.example/3"),
        webhook("wh_4", "https://b.example/4"),
    );
    s.insert_webhook("acct_a", sb, w2.clone());
    s.insert_webhook("acct_a", prod, w3.clone());
    s.insert_webhook("acct_b", sb, w4.clone());
    s.insert_webhook("acct_a", sb, w1.clone());
    let mut s = reopen(Some(s));
    let got = s.webhooks("acct_a", sb);
    expect(got == [w2.clone(), w1.clone()], || {
        format!("acct_a's sandbox webhooks: {got:?}")
    })?;
    expect(s.webhooks("acct_a", prod) == [w3.clone()], || {
        "production webhooks differ".into()
    })?;
    expect(
        s.webhook("acct_a", sb, "wh_1").as_ref() == Some(&w1),
        || "a webhook does not read back".into(),
    )?;
    for (acct, env, id) in [
        ("acct_a", prod, "wh_1"),
        ("acct_b", sb, "wh_1"),
        ("acct_a", sb, "wh_4"),
    ] {
        expect(s.webhook(acct, env, id).is_none(), || {
            format!("{id} is found under {acct} {env:?}")
        })?;
    }
    // A rotation: the new secret, the previous one kept until it expires.
    let mut rotated = w1.clone();
    rotated.secret = Some("whsec_new".into());
    rotated.previous_secret = w1.secret.clone();
    rotated.previous_secret_expires_at = Some(1_700_086_400);
    s.update_webhook("acct_a", sb, rotated.clone());
    // The same id under another scope changes nothing.
    let mut foreign = w4.clone();
    foreign.id = "wh_2".into();
    foreign.url = "https://elsewhere.example".into();
    s.update_webhook("acct_b", sb, foreign);
    let s2 = reopen(Some(s));
    let got = s2.webhooks("acct_a", sb);
    expect(got == [w2.clone(), rotated.clone()], || {
        format!("after a rotation: {got:?}")
    })?;
    let mut s = s2;
    expect(!s.delete_webhook("acct_a", prod, "wh_1"), || {
        "a delete in another environment deleted something".into()
    })?;
    expect(!s.delete_webhook("acct_b", sb, "wh_2"), || {
        "a delete under another account deleted something".into()
    })?;
    expect(s.delete_webhook("acct_a", sb, "wh_2"), || {
        "a delete found nothing".into()
    })?;
    expect(!s.delete_webhook("acct_a", sb, "wh_2"), || {
        "a second delete found something".into()
    })?;
    let s = reopen(Some(s));
    expect(s.webhooks("acct_a", sb) == [rotated], || {
        "after a delete, the list differs".into()
    })?;
    expect(s.webhooks("acct_b", sb) == [w4], || {
        "another account's webhook changed".into()
    })?;
    expect(s.webhooks("acct_a", prod) == [w3], || {
        "another environment's webhook changed".into()
    })?;
    drop(reopen(Some(s)));
    Ok(())
}

/// Idempotent answers: scoped by account, environment and key; replayed byte for byte (a binary body too);
/// [`Store::expire_idempotent`] drops the answers of keys older than its time that created an invoice (the key, its
/// hash, status and invoice stay) and removes old kept refusals, the oldest first, at most its limit of each kind.
pub fn idempotency<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let (sb, prod) = (Environment::Sandbox, Environment::Production);
    let mut s = reopen(None);
    expect(s.idempotent("acct_a", sb, "k1").is_none(), || {
        "a fresh store replays".into()
    })?;
    let json = HttpResponse {
        status: 201,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Location".into(), "/v1/facturas/fact_1".into()),
        ],
        body: br#"{"ok":true,"data":{"id":"fact_1","n":"\u00edtem"}}"#.to_vec(),
    };
    let binary = HttpResponse {
        status: 200,
        headers: vec![("Content-Type".into(), "application/pdf".into())],
        body: vec![0x25, 0x50, 0xff, 0x00, 0xfe],
    };
    let refusal = HttpResponse {
        status: 422,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: br#"{"ok":false}"#.to_vec(),
    };
    let reply = |hash: &str, r: &HttpResponse, invoice: Option<&str>, at: i64| IdempotentReply {
        body_hash: hash.into(),
        status: r.status,
        invoice_id: invoice.map(String::from),
        stored_at: at,
        response: Some(r.clone()),
    };
    let kept = [
        (
            "acct_a",
            sb,
            "k1",
            reply("hash-1", &json, Some("fact_1"), 1_000),
        ),
        (
            "acct_a",
            prod,
            "k1",
            reply("hash-2", &binary, Some("fact_2"), 1_001),
        ),
        ("acct_b", sb, "k1", reply("hash-3", &binary, None, 1_002)),
        (
            "acct_a",
            sb,
            "bad-1",
            reply("hash-4", &refusal, None, 1_003),
        ),
        (
            "acct_a",
            sb,
            "bad-2",
            reply("hash-5", &refusal, None, 1_004),
        ),
        (
            "acct_a",
            sb,
            "k3",
            reply("hash-6", &json, Some("fact_3"), 1_005),
        ),
        (
            "acct_a",
            sb,
            "k4",
            reply("hash-7", &json, Some("fact_4"), 2_000),
        ),
    ];
    for (acct, env, key, r) in &kept {
        s.put_idempotent(acct, *env, key, r.clone());
    }
    let mut s = reopen(Some(s));
    for (acct, env, key, r) in &kept {
        let got = s.idempotent(acct, *env, key);
        expect(got.as_ref() == Some(r), || {
            format!("{acct} {env:?} {key} replays {got:?}")
        })?;
    }
    expect(s.idempotent("acct_a", sb, "k2").is_none(), || {
        "another key replays".into()
    })?;
    expect(s.idempotent("acct_c", sb, "k1").is_none(), || {
        "another account replays".into()
    })?;
    // Before 1 005, one of each kind at most: the oldest answer (k1 sandbox) and the oldest refusal (bad-1).
    let changed = s.expire_idempotent(1_005, 1);
    expect(changed == 2, || format!("a sweep of 1 changed {changed}"))?;
    let mut s = reopen(Some(s));
    let answer_gone = |r: &IdempotentReply| IdempotentReply {
        response: None,
        ..r.clone()
    };
    let got = s.idempotent("acct_a", sb, "k1");
    expect(got == Some(answer_gone(&kept[0].3)), || {
        format!("the oldest answer is not dropped alone: {got:?}")
    })?;
    expect(s.idempotent("acct_a", sb, "bad-1").is_none(), || {
        "the oldest refusal stays".into()
    })?;
    expect(
        s.idempotent("acct_a", sb, "bad-2") == Some(kept[4].3.clone()),
        || "a second refusal went in a sweep of 1".into(),
    )?;
    // Then everything before 1 005: the production answer and bad-2; k3 (at 1 005) and k4 are kept; a 2xx without an
    // invoice keeps its answer (it cannot be rebuilt).
    let changed = s.expire_idempotent(1_005, 100);
    expect(changed == 2, || {
        format!("the second sweep changed {changed}")
    })?;
    let changed = s.expire_idempotent(1_005, 100);
    expect(changed == 0, || {
        format!("a repeated sweep changed {changed}")
    })?;
    let s = reopen(Some(s));
    let want = [
        ("acct_a", sb, "k1", Some(answer_gone(&kept[0].3))),
        ("acct_a", prod, "k1", Some(answer_gone(&kept[1].3))),
        ("acct_b", sb, "k1", Some(kept[2].3.clone())),
        ("acct_a", sb, "bad-1", None),
        ("acct_a", sb, "bad-2", None),
        ("acct_a", sb, "k3", Some(kept[5].3.clone())),
        ("acct_a", sb, "k4", Some(kept[6].3.clone())),
    ];
    for (acct, env, key, r) in want {
        let got = s.idempotent(acct, env, key);
        expect(got == r, || {
            format!("{acct} {env:?} {key} after the sweeps: {got:?}")
        })?;
    }
    drop(reopen(Some(s)));
    Ok(())
}

fn delivery(n: usize, webhook_id: &str, next_attempt_at: i64, status: &str) -> Delivery {
    Delivery {
        id: format!("dlv_{n:04}"),
        account_id: "acct_a".into(),
        environment: Environment::Sandbox,
        webhook_id: webhook_id.into(),
        url: "https://a.example/hook".into(),
        event_id: format!("evt_{n}"),
        body: format!(r#"{{"id":"evt_{n}","type":"factura.approved"}}"#),
        headers: Vec::new(),
        attempts: 0,
        next_attempt_at,
        first_due_at: 1_000 + i64::try_from(n % 7).unwrap_or(0),
        status: status.into(),
        log: Vec::new(),
    }
}

/// Deliveries: read back whole; [`Store::due_deliveries`] the pending ones due by `now`, earliest due first (ties
/// by id), at most [`DELIVERY_BATCH`]; a status change takes one out; [`Store::webhook_deliveries`] one webhook's,
/// newest first (ties by id, descending), a page and the total.
pub fn deliveries<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    expect(s.due_deliveries(i64::MAX).is_empty(), || {
        "a fresh store has due deliveries".into()
    })?;
    let mut all = Vec::new();
    // More than a batch are pending and due (83 of 104); ids and due times are not in the same order.
    let count = DELIVERY_BATCH + 40;
    for n in 0..count {
        let due = 100 + i64::try_from((n * 37) % 50).unwrap_or(0);
        let status = match n % 10 {
            3 => "delivered",
            7 => "failed",
            _ => "pending",
        };
        let hook = if n % 3 == 0 { "wh_x" } else { "wh_y" };
        let d = delivery(n, hook, due, status);
        s.put_delivery(d.clone());
        all.push(d);
    }
    let want = |all: &[Delivery], now: i64| -> Vec<String> {
        let mut w: Vec<&Delivery> = all
            .iter()
            .filter(|d| d.status == "pending" && d.next_attempt_at <= now)
            .collect();
        w.sort_by(|a, b| (a.next_attempt_at, &a.id).cmp(&(b.next_attempt_at, &b.id)));
        w.into_iter()
            .take(DELIVERY_BATCH)
            .map(|d| d.id.clone())
            .collect()
    };
    let dids = |v: &[Delivery]| -> Vec<String> { v.iter().map(|d| d.id.clone()).collect() };
    let mut s = reopen(Some(s));
    for now in [99, 100, 120, 149, i64::MAX] {
        let got = s.due_deliveries(now);
        expect(dids(&got) == want(&all, now), || {
            format!(
                "due at {now}: {:?}, expected {:?}",
                dids(&got),
                want(&all, now)
            )
        })?;
        for g in &got {
            expect(all.iter().any(|d| d == g), || {
                format!("{} does not read back whole", g.id)
            })?;
        }
    }
    // An attempt recorded: delivered, or rescheduled with its log.
    if let Some(d) = all.get_mut(0) {
        d.status = "delivered".into();
        d.attempts = 1;
        d.log.push(Attempt {
            at: 100,
            status: Some(200),
            error: None,
            duration_ms: 12,
        });
        s.put_delivery(d.clone());
    }
    if let Some(d) = all.get_mut(1) {
        d.attempts = 1;
        d.next_attempt_at = 10_000;
        d.log.push(Attempt {
            at: 101,
            status: None,
            error: Some("timeout".into()),
            duration_ms: 10_000,
        });
        s.put_delivery(d.clone());
    }
    let s = reopen(Some(s));
    let got = s.due_deliveries(i64::MAX);
    expect(dids(&got) == want(&all, i64::MAX), || {
        format!(
            "after attempts: {:?}, expected {:?}",
            dids(&got),
            want(&all, i64::MAX)
        )
    })?;
    for d in all.iter().take(3) {
        let got = s.delivery(&d.id);
        expect(got.as_ref() == Some(d), || {
            format!("{} reads back as {got:?}", d.id)
        })?;
    }
    expect(s.delivery("dlv_none").is_none(), || {
        "an unknown delivery is found".into()
    })?;
    // The delivery log of one webhook.
    let mut log: Vec<&Delivery> = all.iter().filter(|d| d.webhook_id == "wh_x").collect();
    log.sort_by(|a, b| (b.first_due_at, &b.id).cmp(&(a.first_due_at, &a.id)));
    for (offset, limit) in [(0, 5), (5, 5), (0, 1_000), (log.len(), 5)] {
        let (page, total) = s.webhook_deliveries("wh_x", offset, limit);
        let expected: Vec<String> = log
            .iter()
            .skip(offset)
            .take(limit)
            .map(|d| d.id.clone())
            .collect();
        expect(dids(&page) == expected && total == log.len(), || {
            format!(
                "wh_x's log at {offset}+{limit}: {:?} of {total}, expected {expected:?} of {}",
                dids(&page),
                log.len()
            )
        })?;
    }
    let (none, total) = s.webhook_deliveries("wh_none", 0, 10);
    expect(none.is_empty() && total == 0, || {
        "an unknown webhook has a log".into()
    })?;
    drop(reopen(Some(s)));
    Ok(())
}
