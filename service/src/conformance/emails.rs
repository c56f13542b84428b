//! The e-mail outbox side of the store contract (issue 36, see [`super::run_all`]).

use super::{expect, Environment, Store, DELIVERY_BATCH};
use crate::email::{EmailKind, EmailMessage, CAPTURED, PENDING, SENT};

fn message(id: &str, invoice: &str, status: &str, next: i64, created: i64) -> EmailMessage {
    EmailMessage {
        id: id.into(),
        account_id: "acct_a".into(),
        environment: Environment::Sandbox,
        invoice_id: invoice.into(),
        cdc: "0".repeat(44),
        kind: EmailKind::Approved,
        to: "cliente@example.com".into(),
        subject: "Factura electrónica 001-001-0000001 de Empresa".into(),
        body: "Estimado/a …".into(),
        status: status.into(),
        attempts: 0,
        next_attempt_at: next,
        created_at: created,
        reason: None,
        log: Vec::new(),
    }
}

fn ids(v: &[EmailMessage]) -> Vec<&str> {
    v.iter().map(|m| m.id.as_str()).collect()
}

/// Messages: read back whole; the due ones are the `pending` ones due by then, earliest first (ties by id), at most a
/// batch; a write back (a lease, a report) replaces the row; an invoice's are listed oldest first.
pub fn emails<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    let mut s = reopen(None);
    expect(s.due_emails(i64::MAX).is_empty(), || {
        "a fresh store has due e-mails".into()
    })?;
    let b = message("eml_b", "fact_1", PENDING, 100, 10);
    s.put_email(b.clone());
    s.put_email(message("eml_a", "fact_1", PENDING, 100, 10));
    s.put_email(message("eml_c", "fact_2", PENDING, 50, 20));
    s.put_email(message("eml_d", "fact_1", CAPTURED, 0, 5));
    s.put_email(message("eml_e", "fact_2", PENDING, 200, 30));
    let mut s = reopen(Some(s));
    expect(s.email("eml_b").as_ref() == Some(&b), || {
        "a message does not read back".into()
    })?;
    let due = s.due_emails(100);
    expect(ids(&due) == ["eml_c", "eml_a", "eml_b"], || {
        format!("due at 100: {:?}", ids(&due))
    })?;
    // Leased (written back later), then sent: no longer due.
    let mut leased = b.clone();
    leased.next_attempt_at = 160;
    s.put_email(leased);
    let mut sent = s.email("eml_c").ok_or("eml_c is gone")?;
    sent.status = SENT.into();
    sent.attempts = 1;
    s.put_email(sent.clone());
    let mut s = reopen(Some(s));
    let due = s.due_emails(150);
    expect(ids(&due) == ["eml_a"], || {
        format!("due at 150: {:?}", ids(&due))
    })?;
    expect(s.email("eml_c") == Some(sent), || {
        "a report does not read back".into()
    })?;
    let of_1 = s.invoice_emails("fact_1");
    expect(ids(&of_1) == ["eml_d", "eml_a", "eml_b"], || {
        format!("fact_1's messages: {:?}", ids(&of_1))
    })?;
    expect(s.invoice_emails("fact_9").is_empty(), || {
        "an unknown invoice has messages".into()
    })?;
    for n in 0..DELIVERY_BATCH + 3 {
        s.put_email(message(&format!("eml_z{n:03}"), "fact_3", PENDING, 1, 40));
    }
    let s = reopen(Some(s));
    expect(s.due_emails(1).len() == DELIVERY_BATCH, || {
        "more than a batch of due e-mails".into()
    })?;
    drop(s);
    Ok(())
}

/// An account's SMTP settings (the panel's "Correo" page): one per account and environment, read back as stored
/// (the sealed password too), replaced whole, deleted, kept across a restart; the other environment and the other
/// account untouched.
pub fn smtp_settings<S: Store>(reopen: &mut dyn FnMut(Option<S>) -> S) -> Result<(), String> {
    use crate::email::SmtpAccountSettings;
    let settings = |url: &str, sealed: Option<&str>, at: i64| SmtpAccountSettings {
        from: "Acme <f@acme.com.py>".into(),
        url: url.into(),
        sealed_password: sealed.map(String::from),
        updated_at: at,
    };
    let (prod, sandbox) = (Environment::Production, Environment::Sandbox);
    let mut s = reopen(None);
    expect(s.smtp_settings("acct_a", prod).is_none(), || {
        "a fresh store has SMTP settings".into()
    })?;
    let a = settings("smtps://smtp.acme.com.py", Some("sealed:v1:00ff"), 10);
    s.put_smtp_settings("acct_a", prod, Some(&a));
    s.put_smtp_settings(
        "acct_b",
        prod,
        Some(&settings("smtp://127.0.0.1:25", None, 11)),
    );
    let mut s = reopen(Some(s));
    expect(s.smtp_settings("acct_a", prod) == Some(a.clone()), || {
        format!("read back {:?}", s.smtp_settings("acct_a", prod))
    })?;
    expect(s.smtp_settings("acct_a", sandbox).is_none(), || {
        "production's settings are the sandbox's".into()
    })?;
    let replaced = settings("smtp://smtp.acme.com.py:2525", None, 12);
    s.put_smtp_settings("acct_a", prod, Some(&replaced));
    expect(s.smtp_settings("acct_a", prod) == Some(replaced), || {
        "not replaced whole".into()
    })?;
    s.put_smtp_settings("acct_a", prod, None);
    let s = reopen(Some(s));
    expect(s.smtp_settings("acct_a", prod).is_none(), || {
        "deleted settings are read back".into()
    })?;
    expect(
        s.smtp_settings("acct_b", prod).map(|b| b.updated_at) == Some(11),
        || "another account's settings changed".into(),
    )
}
