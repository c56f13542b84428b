package dev.kuatia;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * The in-process {@code /v1} service ({@code kuatia_service}): accounts, API keys, invoices, KuDE and webhooks
 * kept in memory, answering HTTP-shaped requests without a server. One service may be used by any number of
 * threads at once (the library serializes the calls). {@link #close()} frees it, waiting for calls in flight;
 * closing twice is harmless, using a closed service throws {@link IllegalStateException}, and a service never
 * closed is freed when collected. The library has no clock and no randomness: each call passes the {@link Clock}'s
 * time and 32 fresh bytes of {@link SecureRandom}.
 */
public final class Service implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** {@code KUATIA_SEED_LEN}. */
    private static final int SEED_LEN = KuatiaLibrary.KUATIA_SEED_LEN;

    /** A new account and its sandbox API key ({@code dk_test_…}, shown only once). */
    public record Account(String id, String key) {}

    /**
     * An answer of the service: the HTTP status, the headers in order, and the raw body (JSON text, or the KuDE
     * PDF of {@code GET /v1/facturas/{id}/kude}).
     */
    public record Response(int status, List<Map.Entry<String, String>> headers, byte[] body) {
        /** The first header with this name (case-insensitive), or {@code null}. */
        public String header(String name) {
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    return h.getValue();
                }
            }
            return null;
        }

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The body parsed as JSON (the {@code {ok, data, meta, error}} envelope). */
        public JsonNode json() {
            return Ffi.parse(text());
        }
    }

    /** The native handle, apart from the Service so the cleaner does not keep the Service reachable. */
    private static final class Handle implements Runnable {
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        private Pointer ptr;

        Handle(Pointer ptr) {
            this.ptr = ptr;
        }

        @Override
        public void run() {
            lock.writeLock().lock();
            try {
                if (ptr != null) {
                    Ffi.LIB.kuatia_service_free(ptr);
                    ptr = null;
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;
    private final Signer sandboxSigner;
    private final Signer productionSigner;
    private final Clock clock;

    /** A service with the default configuration, no signers (sandbox invoices simulated unsigned), the system clock. */
    public Service() {
        this(null, null, null, null);
    }

    /**
     * A service.
     *
     * @param configJson {@code {"base_url","sandbox_send_after","sandbox_answer_after","max_per_page",
     *     "archive_limit","sifen_mode","sifen_lot_poll_after","sifen_lease","sifen_retry"}}, every field optional;
     *     {@code null}: the defaults
     * @param sandboxSigner signs invoices of {@code dk_test_} keys; {@code null}: simulated unsigned
     * @param productionSigner signs invoices of {@code dk_live_} keys; {@code null}: live invoices are refused
     * @param clock the time passed to each call; {@code null}: the system UTC clock
     * @throws KuatiaException {@code INVALID_INPUT} for a bad configuration
     */
    public Service(String configJson, Signer sandboxSigner, Signer productionSigner, Clock clock) {
        this.sandboxSigner = sandboxSigner;
        this.productionSigner = productionSigner;
        this.clock = clock != null ? clock : Clock.systemUTC();
        try (Ffi.In c = Ffi.In.optText(configJson)) {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            Ffi.check(Ffi.LIB.kuatia_service_new(c.ptr, c.len, out, err), err);
            this.handle = new Handle(out.getValue());
        }
        this.cleanable = CLEANER.register(this, handle);
    }

    /** Runs {@code body} with the live handle; closing waits until it returns. */
    private <T> T use(Function<Pointer, T> body) {
        handle.lock.readLock().lock();
        try {
            if (handle.ptr == null) {
                throw new IllegalStateException("the service is closed");
            }
            return body.apply(handle.ptr);
        } finally {
            handle.lock.readLock().unlock();
        }
    }

    /** Holds an optional signer open for {@code body} ({@code null} signer: a NULL handle). */
    private static <T> T withSigner(Signer s, Function<Pointer, T> body) {
        return s == null ? body.apply(null) : s.use(body);
    }

    private long now() {
        return clock.instant().getEpochSecond();
    }

    private static Ffi.In seed() {
        byte[] s = new byte[SEED_LEN];
        RANDOM.nextBytes(s);
        return Ffi.In.bytes(s, true);
    }

    /** Creates an account with the built-in sandbox profile and a {@code dk_test_} key (shown only here). */
    public Account createAccount(String name) {
        long now = now();
        try (Ffi.In n = Ffi.In.text(name, "name"); Ffi.In s = seed()) {
            JsonNode j = use(h -> Ffi.jsonOf((out, err) ->
                    Ffi.LIB.kuatia_service_create_account(h, n.ptr, n.len, now, s.ptr, s.len, out, err)));
            return new Account(j.get("account_id").asText(), j.get("key").asText());
        }
    }

    /**
     * Adds a {@code dk_live_} ({@code live}) or {@code dk_test_} key to an account and returns it (shown only
     * here).
     *
     * @throws KuatiaException {@code INVALID_INPUT} with code {@code NOT_FOUND} for an unknown account
     */
    public String createKey(String accountId, boolean live) {
        long now = now();
        try (Ffi.In a = Ffi.In.text(accountId, "accountId"); Ffi.In s = seed()) {
            return use(h -> Ffi.textOf((out, err) -> Ffi.LIB.kuatia_service_create_key(h, a.ptr, a.len,
                    (byte) (live ? 1 : 0), now, s.ptr, s.len, out, err)));
        }
    }

    /** {@link #handle(String, String, Map, byte[])} with a UTF-8 text body ({@code null}: none). */
    public Response handle(String method, String path, Map<String, String> headers, String body) {
        return handle(method, path, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Answers one request of the {@code /v1} API. HTTP errors (401, 404, 422, ...) are a {@link Response}, not an
     * exception; exceptions are for bad arguments only.
     *
     * @param headers request headers (names case-insensitive); {@code null}: none
     * @param body raw request body; {@code null}: empty
     */
    public Response handle(String method, String path, Map<String, String> headers, byte[] body) {
        ObjectNode req = Ffi.JSON.createObjectNode();
        req.put("method", Objects.requireNonNull(method, "method"));
        req.put("path", Objects.requireNonNull(path, "path"));
        ArrayNode hs = req.putArray("headers");
        if (headers != null) {
            headers.forEach((k, v) -> hs.addArray().add(k).add(v));
        }
        String reqText;
        try {
            reqText = Ffi.JSON.writeValueAsString(req);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the request as JSON", e);
        }
        long now = now();
        try (Ffi.In r = Ffi.In.text(reqText, "request"); Ffi.In b = body == null ? Ffi.In.optText(null)
                : Ffi.In.bytes(body, false); Ffi.In s = seed()) {
            return use(h -> withSigner(sandboxSigner, sp -> withSigner(productionSigner, pp -> {
                KuatiaLibrary.Bytes head = new KuatiaLibrary.Bytes();
                KuatiaLibrary.Bytes out = new KuatiaLibrary.Bytes();
                PointerByReference err = new PointerByReference();
                try {
                    Ffi.check(Ffi.LIB.kuatia_service_handle(h, r.ptr, r.len, b.ptr, b.len, now, s.ptr, s.len, sp,
                            pp, head, out, err), err);
                    JsonNode meta = Ffi.parse(new String(Ffi.copy(head), StandardCharsets.UTF_8));
                    List<Map.Entry<String, String>> list = new ArrayList<>();
                    for (JsonNode kv : meta.get("headers")) {
                        list.add(new AbstractMap.SimpleImmutableEntry<>(kv.get(0).asText(), kv.get(1).asText()));
                    }
                    return new Response(meta.get("status").asInt(), Collections.unmodifiableList(list),
                            Ffi.copy(out));
                } finally {
                    Ffi.LIB.kuatia_bytes_free(head);
                    Ffi.LIB.kuatia_bytes_free(out);
                }
            })));
        }
    }

    // --- typed calls of the /v1 routes: the request for handle(), the envelope decoded -------------------------

    /**
     * The filters and cursor of {@code GET /v1/facturas}; {@code null} fields are left out. {@code createdFrom} and
     * {@code createdTo} are RFC 3339; {@code startingAfter} is the previous page's {@link Page#nextCursor()}. The
     * values are the core's to check (a bad one is {@link ApiException} {@code INVALID_QUERY}).
     */
    public record InvoiceFilter(String status, String createdFrom, String createdTo, String cdc, String numero,
            String receptorRuc, Integer tipoDocumento, String order, Integer limit, String startingAfter) {
        /** No filter. */
        public static InvoiceFilter all() {
            return new InvoiceFilter(null, null, null, null, null, null, null, null, null, null);
        }

        /** This filter with {@code status}. */
        public InvoiceFilter withStatus(String v) {
            return new InvoiceFilter(v, createdFrom, createdTo, cdc, numero, receptorRuc, tipoDocumento, order,
                    limit, startingAfter);
        }

        /** This filter with {@code created_from} and {@code created_to} (either may be {@code null}). */
        public InvoiceFilter withCreated(String from, String to) {
            return new InvoiceFilter(status, from, to, cdc, numero, receptorRuc, tipoDocumento, order, limit,
                    startingAfter);
        }

        /** This filter with {@code cdc}. */
        public InvoiceFilter withCdc(String v) {
            return new InvoiceFilter(status, createdFrom, createdTo, v, numero, receptorRuc, tipoDocumento, order,
                    limit, startingAfter);
        }

        /** This filter with {@code numero}. */
        public InvoiceFilter withNumero(String v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, v, receptorRuc, tipoDocumento, order,
                    limit, startingAfter);
        }

        /** This filter with {@code receptor_ruc}. */
        public InvoiceFilter withReceptorRuc(String v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, numero, v, tipoDocumento, order, limit,
                    startingAfter);
        }

        /** This filter with {@code tipo_documento}. */
        public InvoiceFilter withTipoDocumento(Integer v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, numero, receptorRuc, v, order, limit,
                    startingAfter);
        }

        /** This filter with {@code order} ({@code asc} or {@code desc}). */
        public InvoiceFilter withOrder(String v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, numero, receptorRuc, tipoDocumento, v,
                    limit, startingAfter);
        }

        /** This filter with {@code limit}. */
        public InvoiceFilter withLimit(Integer v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, numero, receptorRuc, tipoDocumento, order,
                    v, startingAfter);
        }

        /** This filter with {@code starting_after}. */
        public InvoiceFilter withStartingAfter(String v) {
            return new InvoiceFilter(status, createdFrom, createdTo, cdc, numero, receptorRuc, tipoDocumento, order,
                    limit, v);
        }

        String query() {
            Map<String, Object> q = new java.util.LinkedHashMap<>();
            q.put("status", status);
            q.put("created_from", createdFrom);
            q.put("created_to", createdTo);
            q.put("cdc", cdc);
            q.put("numero", numero);
            q.put("receptor_ruc", receptorRuc);
            q.put("tipo_documento", tipoDocumento);
            q.put("order", order);
            q.put("limit", limit);
            q.put("starting_after", startingAfter);
            return Service.query(q);
        }
    }

    /** {@code POST /v1/facturas}: the created invoice; {@code idempotencyKey} may be {@code null}. */
    public JsonNode createInvoice(Map<String, String> headers, String requestJson, String idempotencyKey) {
        Map<String, String> h = new java.util.LinkedHashMap<>(headers == null ? Map.of() : headers);
        if (idempotencyKey != null) {
            h.put("Idempotency-Key", idempotencyKey);
        }
        return call("POST", "/v1/facturas", h, requestJson).get("data");
    }

    /** {@code GET /v1/facturas/{id}}: the full invoice resource (docs/api.md, "Invoice"). */
    public JsonNode getInvoice(Map<String, String> headers, String id) {
        return call("GET", "/v1/facturas/" + seg(id), headers, null).get("data");
    }

    /** {@code GET /v1/facturas/{id}/xml}: the signed rDE as sent to SIFEN (UTF-8 bytes). */
    public byte[] invoiceXml(Map<String, String> headers, String id) {
        Response r = handle("GET", "/v1/facturas/" + seg(id) + "/xml", typed(headers), (byte[]) null);
        if (r.status() != 200) {
            envelope(r);
        }
        return r.body();
    }

    /**
     * {@code GET /v1/facturas/{id}/emails}: the invoice's messages to the buyer, oldest first (a JSON array of
     * {@code id, kind, to, subject, body, status, reason, attempts, created_at, next_attempt_at, log}). In-process
     * nothing is sent: every message is {@code captured}.
     */
    public JsonNode invoiceEmails(Map<String, String> headers, String id) {
        return call("GET", "/v1/facturas/" + seg(id) + "/emails", headers, null).get("data");
    }

    /**
     * {@code POST /v1/facturas/{id}/email}: an approved invoice's message queued again, to {@code to} or, for
     * {@code null}, to the document's {@code receptor.email}; the new message. Not approved is {@link ApiException}
     * 409 {@code KUDE_NOT_AVAILABLE}, an address SIFEN would refuse 422 {@code VALIDATION_ERROR}.
     */
    public JsonNode resendEmail(Map<String, String> headers, String id, String to) {
        String body = null;
        if (to != null) {
            ObjectNode b = Ffi.JSON.createObjectNode();
            b.put("to", to);
            body = b.toString();
        }
        return call("POST", "/v1/facturas/" + seg(id) + "/email", headers, body).get("data");
    }

    /**
     * {@code GET /v1/archivo?mes=YYYY-MM}: the zip of the month's signed XMLs and KuDEs, {@code index.csv} and
     * {@code manifest.json}. A bad month, or one of more than {@code archive_limit} documents (config, default 500),
     * is {@link ApiException} 400 {@code INVALID_QUERY}.
     */
    public byte[] monthArchive(Map<String, String> headers, String mes) {
        Map<String, Object> q = new java.util.LinkedHashMap<>();
        q.put("mes", Objects.requireNonNull(mes, "mes"));
        Response r = handle("GET", "/v1/archivo" + query(q), typed(headers), (byte[]) null);
        if (r.status() != 200) {
            envelope(r);
        }
        return r.body();
    }

    /** {@code GET /v1/facturas} with filters and cursor paging. */
    public Page listInvoices(Map<String, String> headers, InvoiceFilter filter) {
        JsonNode e = call("GET", "/v1/facturas" + (filter == null ? "" : filter.query()), headers, null);
        return new Page(e.get("data"), e.path("meta"));
    }

    /** {@code POST /v1/webhooks}: the webhook with its signing {@code secret} (shown only here). */
    public JsonNode createWebhook(Map<String, String> headers, String url, List<String> events) {
        ObjectNode body = Ffi.JSON.createObjectNode();
        body.put("url", url);
        ArrayNode ev = body.putArray("events");
        events.forEach(ev::add);
        return call("POST", "/v1/webhooks", headers, body.toString()).get("data");
    }

    /** {@code GET /v1/webhooks/{id}} (no secret). */
    public JsonNode getWebhook(Map<String, String> headers, String id) {
        return call("GET", "/v1/webhooks/" + seg(id), headers, null).get("data");
    }

    /** {@code DELETE /v1/webhooks/{id}}: {@code {id, deleted: true}}; its pending deliveries are cancelled. */
    public JsonNode deleteWebhook(Map<String, String> headers, String id) {
        return call("DELETE", "/v1/webhooks/" + seg(id), headers, null).get("data");
    }

    /**
     * {@code POST /v1/webhooks/{id}/rotate}: the webhook with its new {@code secret} and
     * {@code previous_secret_expires_at} (both secrets sign until then).
     */
    public JsonNode rotateWebhook(Map<String, String> headers, String id) {
        return call("POST", "/v1/webhooks/" + seg(id) + "/rotate", headers, null).get("data");
    }

    /** {@code GET /v1/webhooks/{id}/deliveries}: the delivery log, newest first ({@code null}: the defaults). */
    public Page deliveries(Map<String, String> headers, String id, Integer page, Integer limit) {
        Map<String, Object> q = new java.util.LinkedHashMap<>();
        q.put("page", page);
        q.put("limit", limit);
        JsonNode e = call("GET", "/v1/webhooks/" + seg(id) + "/deliveries" + query(q), headers, null);
        return new Page(e.get("data"), e.path("meta"));
    }

    /** {@code POST /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver}: the new delivery of the same event. */
    public JsonNode redeliver(Map<String, String> headers, String id, String deliveryId) {
        String path = "/v1/webhooks/" + seg(id) + "/deliveries/" + seg(deliveryId) + "/redeliver";
        return call("POST", path, headers, null).get("data");
    }

    private JsonNode call(String method, String path, Map<String, String> headers, String body) {
        return envelope(handle(method, path, typed(headers), body));
    }

    /**
     * The headers of a typed call: {@code headers} plus {@code Accept-Language} in the language chosen with
     * {@link Kuatia#setLanguage} unless they have one, so an {@link ApiException} reads like every other error of the
     * binding. {@link #handle} sends exactly what it is given.
     */
    private static Map<String, String> typed(Map<String, String> headers) {
        Map<String, String> h = headers == null ? new java.util.LinkedHashMap<>() : new java.util.LinkedHashMap<>(headers);
        if (h.keySet().stream().noneMatch("Accept-Language"::equalsIgnoreCase)) {
            h.put("Accept-Language", Kuatia.language());
        }
        return h;
    }

    /** The envelope of a successful answer; an error answer throws {@link ApiException}. */
    private static JsonNode envelope(Response r) {
        JsonNode e;
        try {
            e = r.json();
        } catch (RuntimeException notJson) {
            throw new ApiException(r.status(), "", r.text(), Ffi.JSON.createArrayNode());
        }
        if (!e.path("ok").asBoolean(false)) {
            JsonNode err = e.path("error");
            JsonNode details = err.has("details") ? err.get("details") : Ffi.JSON.createArrayNode();
            throw new ApiException(r.status(), err.path("code").asText(""), err.path("message").asText(""), details);
        }
        return e;
    }

    private static String seg(String v) {
        return enc(Objects.requireNonNull(v, "id"));
    }

    /** Percent-encodes a path segment or query component (a space as %20, a '+' as %2B). */
    private static String enc(String v) {
        return java.net.URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** {@code ?k=v&…} of the parameters that are not {@code null}; the values are the core's to check. */
    static String query(Map<String, Object> params) {
        StringBuilder q = new StringBuilder();
        params.forEach((k, v) -> {
            if (v != null) {
                q.append(q.length() == 0 ? '?' : '&').append(enc(k)).append('=').append(enc(v.toString()));
            }
        });
        return q.toString();
    }

    /** Advances the sandbox's simulated SIFEN to the clock's time (each request does it too), queueing webhooks. */
    public void tick() {
        long now = now();
        try (Ffi.In s = seed()) {
            use(h -> {
                PointerByReference err = new PointerByReference();
                Ffi.check(Ffi.LIB.kuatia_service_tick(h, now, s.ptr, s.len, err), err);
                return null;
            });
        }
    }

    /**
     * The webhook deliveries due now, a JSON array of {@code {id, url, body, headers: [[name, value]...],
     * event_id, webhook_id, account_id, environment, attempts, next_attempt_at, first_due_at, status}}: POST each
     * {@code body} with exactly its {@code headers} to its {@code url}, then call {@link #reportDelivery}.
     */
    public JsonNode dueDeliveries() {
        long now = now();
        return use(h -> Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_service_due_deliveries(h, now, out, err)));
    }

    /**
     * Records one delivery attempt ({@code ok}: the receiver answered 2xx) and returns the delivery with its new
     * {@code status}: {@code delivered}, {@code pending} with the next {@code next_attempt_at}, or {@code failed}.
     *
     * @throws KuatiaException {@code INVALID_INPUT} with code {@code NOT_FOUND} for an unknown id
     */
    public JsonNode reportDelivery(String deliveryId, boolean ok) {
        try (Ffi.In d = Ffi.In.text(deliveryId, "deliveryId")) {
            return use(h -> Ffi.jsonOf((out, err) ->
                    Ffi.LIB.kuatia_service_report_delivery(h, d.ptr, d.len, (byte) (ok ? 1 : 0), out, err)));
        }
    }

    /**
     * Sets the emitter profile (JSON, as for {@link Kuatia#validate}) the account's {@code dk_live_} keys issue
     * with; {@code null}: the built-in sandbox profile in SIFEN's test environment (TEST ONLY).
     *
     * @throws KuatiaException {@code INVALID_INPUT} with code {@code NOT_FOUND} for an unknown account, or with
     *     paths under {@code profile} for a bad profile
     */
    public void setProductionProfile(String accountId, String profileJson) {
        try (Ffi.In a = Ffi.In.text(accountId, "accountId"); Ffi.In p = Ffi.In.optText(profileJson)) {
            use(h -> {
                PointerByReference err = new PointerByReference();
                Ffi.check(Ffi.LIB.kuatia_service_set_production_profile(h, a.ptr, a.len, p.ptr, p.len, err), err);
                return null;
            });
        }
    }

    /**
     * The SIFEN calls due now for production invoices (at most {@code limit} invoices), each a JSON object
     * {@code {account_id, service, url, content_type, body, d_id, invoices}}: POST {@code body} with that
     * {@code Content-Type} to {@code url} over TLS 1.2 with the certificate of the account's emitter, then pass the
     * job back to {@link #reportSifen} with what came of it. A job never reported is not resent blindly: its
     * invoices are queried by CDC after a lease.
     */
    public List<JsonNode> dueSifen(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit " + limit + " is negative");
        }
        long now = now();
        try (Ffi.In s = seed()) {
            JsonNode jobs = use(h -> Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_service_due_sifen(h, now, s.ptr, s.len,
                    new KuatiaLibrary.SizeT(limit), out, err)));
            List<JsonNode> list = new ArrayList<>();
            jobs.forEach(list::add);
            return Collections.unmodifiableList(list);
        }
    }

    /**
     * Reports what came of a job of {@link #dueSifen} (passed back as it came) and returns where each of its
     * invoices stands: {@code {invoice_id, status, transmission: {next, due_at, attempts, last_error?}}}. SIFEN's
     * verdicts approve or reject the invoices (queueing their webhooks); anything else schedules a query by CDC
     * after the {@code sifen_retry} back-off.
     *
     * @throws KuatiaException {@code INVALID_INPUT} for a job that is not one of {@link #dueSifen}'s
     */
    public List<JsonNode> reportSifen(JsonNode job, SifenOutcome outcome) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(outcome, "outcome");
        String jobText;
        try {
            jobText = Ffi.JSON.writeValueAsString(job);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the job as JSON", e);
        }
        int kind;
        int status = 0;
        byte[] body = null;
        String message = null;
        if (outcome instanceof SifenOutcome.Answer a) {
            kind = KuatiaLibrary.KUATIA_SIFEN_OUTCOME_ANSWER;
            status = a.status();
            body = a.body();
        } else if (outcome instanceof SifenOutcome.Failed f) {
            kind = KuatiaLibrary.KUATIA_SIFEN_OUTCOME_FAILED;
            message = f.message();
        } else {
            kind = KuatiaLibrary.KUATIA_SIFEN_OUTCOME_TIMEOUT;
        }
        long now = now();
        final int k = kind;
        final short st = (short) status;
        try (Ffi.In j = Ffi.In.text(jobText, "job"); Ffi.In b = body == null ? Ffi.In.optText(null)
                : Ffi.In.bytes(body, false); Ffi.In m = Ffi.In.optText(message); Ffi.In s = seed()) {
            JsonNode progress = use(h -> Ffi.jsonOf((out, err) -> Ffi.LIB.kuatia_service_report_sifen(h, j.ptr,
                    j.len, k, st, b.ptr, b.len, m.ptr, m.len, now, s.ptr, s.len, out, err)));
            List<JsonNode> list = new ArrayList<>();
            progress.forEach(list::add);
            return Collections.unmodifiableList(list);
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        handle.lock.readLock().lock();
        try {
            return handle.ptr == null;
        } finally {
            handle.lock.readLock().unlock();
        }
    }

    /** Frees the service and everything it stores; safe to call more than once. */
    @Override
    public void close() {
        cleanable.clean();
    }
}
