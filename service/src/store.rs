//! Persistence of the service behind a small trait; [`MemoryStore`] is the in-memory implementation (tests,
//! browsers, single-process hosts). Hosts bring SQLite, PostgreSQL, ... by implementing [`Store`].

use super::auth::{Environment, StoredKey};
use super::email::{EmailMessage, SmtpAccountSettings};
use super::webhook::{Delivery, Webhook};
use super::HttpResponse;
use kuatia_core::error::Finding;
use kuatia_core::lifecycle::Estado;
use kuatia_core::numbering::{Gap, MemoryNumbering, Numbering, NumberingKey};
use kuatia_core::profile::Emisor;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The store contract every [`Store`] runs, kept in `conformance.rs` beside this file.
pub use super::conformance;

/// Most deliveries one [`Store::due_deliveries`] answers (a worker takes a few per endpoint each round; a backlog is
/// read a batch at a time, not whole).
pub const DELIVERY_BATCH: usize = 64;
pub use crate::record::{Cancellation, CancellationStatus, InvoiceRecord};

/// An account: its profiles per environment and its hashed keys.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// `acct_…` identifier.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Emitter profile used by sandbox keys (default: the built-in sandbox profile).
    pub sandbox: Emisor,
    /// Emitter profile used by live keys; `None` until the account is set up for production.
    pub production: Option<Emisor>,
    /// Whether the account completed a sandbox flow (spec §1 prerequisite 1).
    pub sandbox_completed: bool,
    /// Whether the RUC is enabled for the authority's API programme (spec §1 prerequisite 4), as the host knows it.
    pub ruc_enabled: bool,
    /// Hashed API keys.
    pub keys: Vec<StoredKey>,
    /// Unix time of creation (0 for accounts stored before it was kept).
    #[serde(default)]
    pub created_at: i64,
}

impl Account {
    /// The profile of an environment.
    pub fn profile(&self, env: Environment) -> Option<&Emisor> {
        match env {
            Environment::Sandbox => Some(&self.sandbox),
            Environment::Production => self.production.as_ref(),
        }
    }
}

/// Which invoices a list asks for: filters (all must hold), an order and a page. Creation order is the order in which
/// the store inserted the records (SQLite's `seq`), so a walk with [`InvoiceQuery::starting_after`] neither skips nor
/// repeats a row while others are being inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvoiceQuery {
    /// Only this status.
    pub status: Option<Estado>,
    /// Created at or after this Unix time.
    pub created_from: Option<i64>,
    /// Created before this Unix time.
    pub created_to: Option<i64>,
    /// Only this CDC.
    pub cdc: Option<String>,
    /// Only this number (`EEE-PPP-NNNNNNN`).
    pub numero: Option<String>,
    /// Only this receiver RUC (`digits-DV`).
    pub receptor_ruc: Option<String>,
    /// Only this document type.
    pub tipo_documento: Option<u8>,
    /// Oldest first (default: newest first).
    pub ascending: bool,
    /// Cursor: only invoices after this one (of the same account and environment) in the chosen order.
    pub starting_after: Option<String>,
    /// Rows to skip (page/per_page compatibility; 0 with a cursor).
    pub offset: usize,
    /// Largest number of rows to return.
    pub limit: usize,
}

impl Default for InvoiceQuery {
    fn default() -> Self {
        InvoiceQuery {
            status: None,
            created_from: None,
            created_to: None,
            cdc: None,
            numero: None,
            receptor_ruc: None,
            tipo_documento: None,
            ascending: false,
            starting_after: None,
            offset: 0,
            limit: 20,
        }
    }
}

impl InvoiceQuery {
    /// Whether a record passes the filters (not the cursor or the page): the reference semantics every store matches.
    pub fn matches(&self, i: &InvoiceRecord) -> bool {
        self.status.is_none_or(|s| i.status == s)
            && self.created_from.is_none_or(|t| i.created_at >= t)
            && self.created_to.is_none_or(|t| i.created_at < t)
            && self.cdc.as_ref().is_none_or(|c| &i.cdc == c)
            && self.numero.as_ref().is_none_or(|n| &i.numero == n)
            && self
                .receptor_ruc
                .as_ref()
                .is_none_or(|r| i.receptor_ruc.as_ref() == Some(r))
            && self.tipo_documento.is_none_or(|t| i.tipo_documento == t)
    }
}

/// What the service needs to persist.
pub trait Store {
    /// The account owning the key with this public id, and that key's stored form.
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)>;
    /// An account by id.
    fn account(&self, id: &str) -> Option<Account>;
    /// Creates or replaces an account.
    fn put_account(&mut self, account: Account);
    /// Stores a new invoice.
    fn insert_invoice(&mut self, invoice: InvoiceRecord);
    /// An invoice of an account.
    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord>;
    /// An invoice of an account, its `xml` left empty when the store keeps the XML apart and reading it costs more
    /// than the rest (a status lookup needs it only once per invoice: [`Store::invoice`] gets it then).
    fn invoice_state(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.invoice(account_id, id)
    }
    /// An invoice about to be changed and written back with [`Store::update_invoice`]. A store that several nodes
    /// share locks it until the transaction ends, so that two nodes never both apply a change to the same state
    /// (two `factura.approved` for one invoice); a store with one writer at a time reads it as [`Store::invoice`].
    fn invoice_for_update(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.invoice(account_id, id)
    }
    /// Replaces a stored invoice.
    fn update_invoice(&mut self, invoice: InvoiceRecord);
    /// A page of an account's invoices in one environment matching `query`, in creation order (newest first unless
    /// [`InvoiceQuery::ascending`]), and the count of all that match its filters (cursor and offset aside).
    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize);
    /// Sandbox invoices the simulated SIFEN still has to move (pending or sent, no `_simulate`).
    fn simulated_in_flight(&self) -> Vec<InvoiceRecord>;
    /// Invoices whose next SIFEN step ([`InvoiceRecord::transmission`]) is due at or before `now`, earliest due
    /// first, at most `limit`.
    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord>;
    /// Stores a webhook (with its secret).
    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook);
    /// An account's webhooks in one environment (with secrets, for signing).
    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook>;
    /// One webhook of an account's environment (with its secrets).
    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook>;
    /// Replaces a stored webhook of an account's environment (a secret rotation).
    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook);
    /// Deletes a webhook of an account's environment; whether there was one.
    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool;
    /// Every account, oldest first (host administration: `kuatia accounts list`); ties in creation order where the
    /// store knows it.
    fn accounts(&self) -> Vec<Account>;
    /// Reserves the next document number of a sequence of an account's environment (the numbering contract,
    /// [`kuatia_core::numbering`]; see [`StoreNumbering`]).
    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding>;
    /// Confirms a reserved number with the CDC of the document now stored.
    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding>;
    /// Reserved numbers of an account's environment that never became a document.
    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding>;
    /// A kept idempotency key of an account's environment ([`IdempotentReply`]). Keys are scoped by account *and*
    /// environment, so a sandbox answer is never replayed to a live key.
    fn idempotent(&self, account_id: &str, env: Environment, key: &str) -> Option<IdempotentReply>;
    /// Keeps an idempotency key and what its retries are answered with.
    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        reply: IdempotentReply,
    );
    /// Forgets what keys stored before `before` no longer need (docs/operations.md, "Idempotency keys"): the stored
    /// answer of a key that created an invoice (the key, its hash, its status and the invoice stay, as long as the
    /// invoice), and the whole key of a kept refusal (it created nothing). At most `limit` keys of each kind, the
    /// oldest first; how many keys it changed.
    fn expire_idempotent(&mut self, before: i64, limit: usize) -> usize;
    /// Queues a delivery.
    fn put_delivery(&mut self, delivery: Delivery);
    /// Deliveries with status `pending` due at or before `now`: the earliest due first (ties by id), at most
    /// [`DELIVERY_BATCH`].
    fn due_deliveries(&self, now: i64) -> Vec<Delivery>;
    /// A delivery by id.
    fn delivery(&self, id: &str) -> Option<Delivery>;
    /// A page of one webhook's deliveries, newest first, and their total count (the delivery log).
    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize);
    /// Stores or replaces an e-mail message of the outbox.
    fn put_email(&mut self, message: EmailMessage);
    /// Messages with status `pending` due at or before `now`: the earliest due first (ties by id), at most
    /// [`DELIVERY_BATCH`]. A store several nodes share locks them until the transaction ends, skipping those another
    /// transaction holds.
    fn due_emails(&self, now: i64) -> Vec<EmailMessage>;
    /// An e-mail message by id.
    fn email(&self, id: &str) -> Option<EmailMessage>;
    /// The messages of one invoice, oldest first (ties by id).
    fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage>;
    /// An account's own SMTP settings for one environment, if it saved any.
    fn smtp_settings(&self, account_id: &str, env: Environment) -> Option<SmtpAccountSettings>;
    /// Stores (`Some`) or deletes (`None`) an account's SMTP settings for one environment.
    fn put_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        settings: Option<&SmtpAccountSettings>,
    );
    /// A record of the account panel by key (sign-in links, sessions and password hashes of the account panel, `api::panel`, and
    /// its sign-in throttles; JSON text, secrets only as hashes).
    fn panel_record(&self, key: &str) -> Option<String>;
    /// Stores (`Some`) or deletes (`None`) a panel record.
    fn put_panel_record(&mut self, key: &str, value: Option<&str>);
}

/// One account environment's numbering in a [`Store`], as the pipeline's [`Numbering`].
pub struct StoreNumbering<'s, S: Store + ?Sized> {
    /// The store.
    pub store: &'s mut S,
    /// The account.
    pub account_id: &'s str,
    /// Its environment.
    pub env: Environment,
}

impl<S: Store + ?Sized> Numbering for StoreNumbering<'_, S> {
    fn reserve(&mut self, key: &NumberingKey) -> Result<u32, Finding> {
        self.store.reserve_number(self.account_id, self.env, key)
    }

    fn confirm(&mut self, key: &NumberingKey, numero: u32, cdc: &str) -> Result<(), Finding> {
        self.store
            .confirm_number(self.account_id, self.env, key, numero, cdc)
    }

    fn gaps(&self) -> Result<Vec<Gap>, Finding> {
        self.store.number_gaps(self.account_id, self.env)
    }
}

/// A kept `Idempotency-Key` (docs/api.md, "Idempotency"): what a retry with the key is answered from. The key, its
/// request's hash, the status and the invoice it created are kept as long as the invoice; the exact answer only for
/// the replay window ([`crate::Config::idempotency_window`]), after which a retry gets the invoice as it is then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotentReply {
    /// The hash of the key's first request (`create.rs`, `canonical_hash`).
    pub body_hash: String,
    /// The status of the first answer (201 for a create).
    pub status: u16,
    /// The invoice the first request created; `None` for a kept refusal (a 400 or 422 that depends only on the body).
    pub invoice_id: Option<String>,
    /// Unix time the key was stored (its request's time).
    pub stored_at: i64,
    /// The first answer, byte for byte, until [`Store::expire_idempotent`] drops it.
    pub response: Option<HttpResponse>,
}

impl IdempotentReply {
    /// Whether [`Store::expire_idempotent`] changes this key once it is old enough: its answer is still stored and
    /// either it created an invoice (the answer is rebuilt from it) or it is a refusal (a status outside 2xx: the key
    /// goes). A 2xx without an invoice (never written by a create) keeps its answer.
    pub fn expires(&self) -> bool {
        self.response.is_some() && (self.invoice_id.is_some() || !(200..300).contains(&self.status))
    }
}

/// In-memory [`Store`].
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    accounts: BTreeMap<String, Account>,
    keys: HashMap<String, (String, StoredKey)>,
    invoices: BTreeMap<String, InvoiceRecord>,
    order: Vec<String>,
    webhooks: Vec<(String, Environment, Webhook)>,
    numbering: HashMap<(String, Environment), MemoryNumbering>,
    idempotency: HashMap<(String, Environment, String), IdempotentReply>,
    deliveries: BTreeMap<String, Delivery>,
    emails: BTreeMap<String, EmailMessage>,
    /// Ids of sandbox invoices the simulator still moves, so a request does not scan every invoice.
    in_flight: std::collections::BTreeSet<String>,
    /// `(due_at, creation rank, id)` of invoices with a SIFEN step to take (ties in creation order, as SQL's `seq`).
    transmitting: std::collections::BTreeSet<(i64, usize, String)>,
    /// The `due_at` under which each of those is indexed.
    transmit_due: HashMap<String, i64>,
    /// Each invoice's index in `order`.
    rank: HashMap<String, usize>,
    /// Account ids in the order they were first stored (`accounts` lists ties of `created_at` so).
    account_order: Vec<String>,
    panel: BTreeMap<String, String>,
    smtp: HashMap<(String, Environment), SmtpAccountSettings>,
}

impl MemoryStore {
    fn track(&mut self, invoice: &InvoiceRecord) {
        if invoice.is_simulated_in_flight() {
            self.in_flight.insert(invoice.id.clone());
        } else {
            self.in_flight.remove(&invoice.id);
        }
        let rank = self.rank.get(&invoice.id).copied().unwrap_or(usize::MAX);
        if let Some(due) = self.transmit_due.remove(&invoice.id) {
            self.transmitting.remove(&(due, rank, invoice.id.clone()));
        }
        if !invoice.transmission.is_idle() {
            let due = invoice.transmission.due_at;
            self.transmit_due.insert(invoice.id.clone(), due);
            self.transmitting.insert((due, rank, invoice.id.clone()));
        }
    }
}
/// A boxed store is a store (the server keeps its engine as `Box<dyn HostStore>`): every method forwards, so an
/// engine's own overrides are kept.
impl<S: Store + ?Sized> Store for Box<S> {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        (**self).find_key(key_id)
    }
    fn account(&self, id: &str) -> Option<Account> {
        (**self).account(id)
    }
    fn put_account(&mut self, account: Account) {
        (**self).put_account(account)
    }
    fn insert_invoice(&mut self, invoice: InvoiceRecord) {
        (**self).insert_invoice(invoice)
    }
    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        (**self).invoice(account_id, id)
    }
    fn invoice_state(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        (**self).invoice_state(account_id, id)
    }
    fn invoice_for_update(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        (**self).invoice_for_update(account_id, id)
    }
    fn update_invoice(&mut self, invoice: InvoiceRecord) {
        (**self).update_invoice(invoice)
    }
    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize) {
        (**self).list_invoices(account_id, env, query)
    }
    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        (**self).simulated_in_flight()
    }
    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        (**self).sifen_due(now, limit)
    }
    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        (**self).insert_webhook(account_id, env, webhook)
    }
    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        (**self).webhooks(account_id, env)
    }
    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook> {
        (**self).webhook(account_id, env, id)
    }
    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        (**self).update_webhook(account_id, env, webhook)
    }
    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool {
        (**self).delete_webhook(account_id, env, id)
    }
    fn accounts(&self) -> Vec<Account> {
        (**self).accounts()
    }
    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        (**self).reserve_number(account_id, env, key)
    }
    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        (**self).confirm_number(account_id, env, key, numero, cdc)
    }
    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        (**self).number_gaps(account_id, env)
    }
    fn idempotent(&self, account_id: &str, env: Environment, key: &str) -> Option<IdempotentReply> {
        (**self).idempotent(account_id, env, key)
    }
    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        reply: IdempotentReply,
    ) {
        (**self).put_idempotent(account_id, env, key, reply)
    }
    fn expire_idempotent(&mut self, before: i64, limit: usize) -> usize {
        (**self).expire_idempotent(before, limit)
    }
    fn put_delivery(&mut self, delivery: Delivery) {
        (**self).put_delivery(delivery)
    }
    fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        (**self).due_deliveries(now)
    }
    fn delivery(&self, id: &str) -> Option<Delivery> {
        (**self).delivery(id)
    }
    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        (**self).webhook_deliveries(webhook_id, offset, limit)
    }
    fn put_email(&mut self, message: EmailMessage) {
        (**self).put_email(message)
    }
    fn due_emails(&self, now: i64) -> Vec<EmailMessage> {
        (**self).due_emails(now)
    }
    fn email(&self, id: &str) -> Option<EmailMessage> {
        (**self).email(id)
    }
    fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage> {
        (**self).invoice_emails(invoice_id)
    }
    fn smtp_settings(&self, account_id: &str, env: Environment) -> Option<SmtpAccountSettings> {
        (**self).smtp_settings(account_id, env)
    }
    fn put_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        settings: Option<&SmtpAccountSettings>,
    ) {
        (**self).put_smtp_settings(account_id, env, settings)
    }
    fn panel_record(&self, key: &str) -> Option<String> {
        (**self).panel_record(key)
    }
    fn put_panel_record(&mut self, key: &str, value: Option<&str>) {
        (**self).put_panel_record(key, value)
    }
}

impl Store for MemoryStore {
    fn find_key(&self, key_id: &str) -> Option<(String, StoredKey)> {
        self.keys.get(key_id).cloned()
    }

    fn account(&self, id: &str) -> Option<Account> {
        self.accounts.get(id).cloned()
    }

    fn put_account(&mut self, account: Account) {
        for k in &account.keys {
            self.keys
                .insert(k.key_id.clone(), (account.id.clone(), k.clone()));
        }
        if !self.accounts.contains_key(&account.id) {
            self.account_order.push(account.id.clone());
        }
        self.accounts.insert(account.id.clone(), account);
    }

    fn insert_invoice(&mut self, invoice: InvoiceRecord) {
        self.rank.insert(invoice.id.clone(), self.order.len());
        self.track(&invoice);
        self.order.push(invoice.id.clone());
        self.invoices.insert(invoice.id.clone(), invoice);
    }

    fn invoice(&self, account_id: &str, id: &str) -> Option<InvoiceRecord> {
        self.invoices
            .get(id)
            .filter(|i| i.account_id == account_id)
            .cloned()
    }

    fn update_invoice(&mut self, invoice: InvoiceRecord) {
        self.track(&invoice);
        self.invoices.insert(invoice.id.clone(), invoice);
    }

    fn list_invoices(
        &self,
        account_id: &str,
        env: Environment,
        query: &InvoiceQuery,
    ) -> (Vec<InvoiceRecord>, usize) {
        // `order` is creation order: a record's index there is its rank, and the cursor's index decides what follows.
        let mut mine: Vec<(usize, &InvoiceRecord)> = self
            .order
            .iter()
            .enumerate()
            .filter_map(|(n, id)| self.invoices.get(id).map(|i| (n, i)))
            .filter(|(_, i)| i.account_id == account_id && i.environment == env && query.matches(i))
            .collect();
        if !query.ascending {
            mine.reverse();
        }
        let total = mine.len();
        let after = match &query.starting_after {
            Some(a) => match self.rank.get(a) {
                Some(p) => Some(*p),
                None => return (Vec::new(), total),
            },
            None => None,
        };
        let items = mine
            .into_iter()
            .filter(|(n, _)| after.is_none_or(|p| if query.ascending { *n > p } else { *n < p }))
            .skip(query.offset)
            .take(query.limit)
            .map(|(_, i)| i.clone())
            .collect();
        (items, total)
    }

    fn simulated_in_flight(&self) -> Vec<InvoiceRecord> {
        self.in_flight
            .iter()
            .filter_map(|id| self.invoices.get(id))
            .cloned()
            .collect()
    }

    fn sifen_due(&self, now: i64, limit: usize) -> Vec<InvoiceRecord> {
        self.transmitting
            .iter()
            .take_while(|(due, _, _)| *due <= now)
            .filter_map(|(_, _, id)| self.invoices.get(id))
            .take(limit)
            .cloned()
            .collect()
    }

    fn insert_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        self.webhooks.push((account_id.to_string(), env, webhook));
    }

    fn webhooks(&self, account_id: &str, env: Environment) -> Vec<Webhook> {
        self.webhooks
            .iter()
            .filter(|(a, e, _)| a == account_id && *e == env)
            .map(|(_, _, w)| w.clone())
            .collect()
    }

    fn webhook(&self, account_id: &str, env: Environment, id: &str) -> Option<Webhook> {
        self.webhooks
            .iter()
            .find(|(a, e, w)| a == account_id && *e == env && w.id == id)
            .map(|(_, _, w)| w.clone())
    }

    fn update_webhook(&mut self, account_id: &str, env: Environment, webhook: Webhook) {
        for (a, e, w) in &mut self.webhooks {
            if a == account_id && *e == env && w.id == webhook.id {
                *w = webhook.clone();
            }
        }
    }

    fn delete_webhook(&mut self, account_id: &str, env: Environment, id: &str) -> bool {
        let before = self.webhooks.len();
        self.webhooks
            .retain(|(a, e, w)| !(a == account_id && *e == env && w.id == id));
        self.webhooks.len() != before
    }

    fn accounts(&self) -> Vec<Account> {
        let mut all: Vec<Account> = self
            .account_order
            .iter()
            .filter_map(|id| self.accounts.get(id).cloned())
            .collect();
        // Stable: ties stay in the order the accounts were first stored.
        all.sort_by_key(|a| a.created_at);
        all
    }

    fn reserve_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
    ) -> Result<u32, Finding> {
        self.numbering
            .entry((account_id.to_string(), env))
            .or_default()
            .reserve(key)
    }

    fn confirm_number(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &NumberingKey,
        numero: u32,
        cdc: &str,
    ) -> Result<(), Finding> {
        match self.numbering.get_mut(&(account_id.to_string(), env)) {
            Some(n) => n.confirm(key, numero, cdc),
            None => Err(kuatia_core::numbering::not_reserved(key, numero)),
        }
    }

    fn number_gaps(&self, account_id: &str, env: Environment) -> Result<Vec<Gap>, Finding> {
        match self.numbering.get(&(account_id.to_string(), env)) {
            Some(n) => n.gaps(),
            None => Ok(Vec::new()),
        }
    }

    fn idempotent(&self, account_id: &str, env: Environment, key: &str) -> Option<IdempotentReply> {
        self.idempotency
            .get(&(account_id.to_string(), env, key.to_string()))
            .cloned()
    }

    fn put_idempotent(
        &mut self,
        account_id: &str,
        env: Environment,
        key: &str,
        reply: IdempotentReply,
    ) {
        self.idempotency
            .insert((account_id.to_string(), env, key.to_string()), reply);
    }

    fn expire_idempotent(&mut self, before: i64, limit: usize) -> usize {
        let mut changed = 0;
        // Two kinds, each the oldest `limit` first: kept refusals go, created invoices' answers are dropped.
        for refusal in [true, false] {
            let mut due: Vec<(i64, (String, Environment, String))> = self
                .idempotency
                .iter()
                .filter(|(_, r)| {
                    r.stored_at < before && r.expires() && r.invoice_id.is_none() == refusal
                })
                .map(|(k, r)| (r.stored_at, k.clone()))
                .collect();
            due.sort_by(|a, b| {
                (a.0, &a.1 .0, a.1 .1.as_str(), &a.1 .2).cmp(&(
                    b.0,
                    &b.1 .0,
                    b.1 .1.as_str(),
                    &b.1 .2,
                ))
            });
            due.truncate(limit);
            changed += due.len();
            for (_, k) in &due {
                if refusal {
                    self.idempotency.remove(k);
                } else if let Some(r) = self.idempotency.get_mut(k) {
                    r.response = None;
                }
            }
        }
        changed
    }

    fn put_delivery(&mut self, delivery: Delivery) {
        self.deliveries.insert(delivery.id.clone(), delivery);
    }

    fn due_deliveries(&self, now: i64) -> Vec<Delivery> {
        let mut due: Vec<&Delivery> = self
            .deliveries
            .values()
            .filter(|d| d.status == "pending" && d.next_attempt_at <= now)
            .collect();
        due.sort_by(|a, b| (a.next_attempt_at, &a.id).cmp(&(b.next_attempt_at, &b.id)));
        due.into_iter().take(DELIVERY_BATCH).cloned().collect()
    }

    fn delivery(&self, id: &str) -> Option<Delivery> {
        self.deliveries.get(id).cloned()
    }

    fn webhook_deliveries(
        &self,
        webhook_id: &str,
        offset: usize,
        limit: usize,
    ) -> (Vec<Delivery>, usize) {
        let mut mine: Vec<&Delivery> = self
            .deliveries
            .values()
            .filter(|d| d.webhook_id == webhook_id)
            .collect();
        mine.sort_by(|a, b| (b.first_due_at, &b.id).cmp(&(a.first_due_at, &a.id)));
        let total = mine.len();
        (
            mine.into_iter().skip(offset).take(limit).cloned().collect(),
            total,
        )
    }

    fn put_email(&mut self, message: EmailMessage) {
        self.emails.insert(message.id.clone(), message);
    }

    fn due_emails(&self, now: i64) -> Vec<EmailMessage> {
        let mut due: Vec<&EmailMessage> = self
            .emails
            .values()
            .filter(|m| m.status == crate::email::PENDING && m.next_attempt_at <= now)
            .collect();
        due.sort_by(|a, b| (a.next_attempt_at, &a.id).cmp(&(b.next_attempt_at, &b.id)));
        due.into_iter().take(DELIVERY_BATCH).cloned().collect()
    }

    fn email(&self, id: &str) -> Option<EmailMessage> {
        self.emails.get(id).cloned()
    }

    fn invoice_emails(&self, invoice_id: &str) -> Vec<EmailMessage> {
        let mut mine: Vec<EmailMessage> = self
            .emails
            .values()
            .filter(|m| m.invoice_id == invoice_id)
            .cloned()
            .collect();
        mine.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        mine
    }

    fn smtp_settings(&self, account_id: &str, env: Environment) -> Option<SmtpAccountSettings> {
        self.smtp.get(&(account_id.to_string(), env)).cloned()
    }

    fn put_smtp_settings(
        &mut self,
        account_id: &str,
        env: Environment,
        settings: Option<&SmtpAccountSettings>,
    ) {
        let key = (account_id.to_string(), env);
        match settings {
            Some(s) => self.smtp.insert(key, s.clone()),
            None => self.smtp.remove(&key),
        };
    }

    fn panel_record(&self, key: &str) -> Option<String> {
        self.panel.get(key).cloned()
    }

    fn put_panel_record(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => self.panel.insert(key.to_string(), v.to_string()),
            None => self.panel.remove(key),
        };
    }
}
