package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Service: the in-process /v1 API driven like an HTTP client (spec flow, 401, webhooks, errors, threads). */
class ServiceTest {
    /** 2025-03-10 13:11:00 UTC = 10:11 in Asunción. */
    private static final long NOW = 1_741_612_260L;

    private static final String FACTURA = """
            {"tipo_documento":1,"condicion_pago":1,
             "receptor":{"ruc":"80069563-1","razon_social":"Cliente Ejemplo S.A."},
             "items":[{"descripcion":"Servicio de consultoría","cantidad":1,"precio_unitario":1100000,"iva":10}]
            """;

    private static String factura(String simulate) {
        return FACTURA.strip() + (simulate == null ? "}" : ",\"_simulate\":\"" + simulate + "\"}");
    }

    /** A clock the test moves. */
    private static final class TestClock extends Clock {
        final AtomicLong unix = new AtomicLong(NOW);

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochSecond(unix.get());
        }
    }

    private static Map<String, String> sandbox(String key) {
        return Map.of("Authorization", "Bearer " + key, "X-Environment", "sandbox");
    }

    @Test
    void specFlowSimulateApprovedGetAndKude() {
        TestClock clock = new TestClock();
        try (Signer signer = Signer.sandbox();
                Service svc = new Service("{\"base_url\":\"https://erp.example.test\"}", signer, null, clock)) {
            Service.Account acct = svc.createAccount("Empresa de prueba");
            assertTrue(acct.id().startsWith("acct_") && acct.key().startsWith("dk_test_"), acct::toString);
            Service.Response r = svc.handle("POST", "/v1/facturas", sandbox(acct.key()), factura("approved"));
            assertEquals(201, r.status(), r::text);
            JsonNode d = r.json().get("data");
            assertEquals("approved", d.get("status").asText());
            assertEquals("001-001-0000001", d.get("numero").asText());
            String id = d.get("id").asText();
            String cdc = d.get("cdc").asText();
            assertEquals("https://erp.example.test/v1/facturas/" + id + "/kude", d.get("kude_url").asText());
            // The CDC is valid for the library's own parser and carries the sandbox emitter.
            assertEquals("44444401-7", Kuatia.cdcParse(cdc).get("ruc").asText());

            clock.unix.addAndGet(1);
            Service.Response g = svc.handle("GET", "/v1/facturas/" + id, sandbox(acct.key()), (String) null);
            assertEquals(200, g.status());
            assertEquals(cdc, g.json().get("data").get("cdc").asText());

            Service.Response k = svc.handle("GET", "/v1/facturas/" + id + "/kude", sandbox(acct.key()), (byte[]) null);
            assertEquals(200, k.status());
            assertEquals("application/pdf", k.header("content-type"));
            byte[] pdf = k.body();
            assertArrayEquals("%PDF-".getBytes(StandardCharsets.US_ASCII), java.util.Arrays.copyOf(pdf, 5));
            String tail = new String(pdf, pdf.length - 64, 64, StandardCharsets.ISO_8859_1);
            assertTrue(tail.contains("%%EOF"), tail);
        }
    }

    @Test
    void unauthorizedWithoutOrWithAForeignKey() {
        try (Service svc = new Service(); Service other = new Service()) {
            svc.createAccount("A");
            Service.Response r = svc.handle("GET", "/v1/facturas", null, (String) null);
            assertEquals(401, r.status());
            assertEquals("UNAUTHORIZED", r.json().get("error").get("code").asText());
            assertEquals("Bearer", r.header("WWW-Authenticate"));
            String foreign = other.createAccount("B").key();
            assertEquals(401, svc.handle("GET", "/v1/facturas", sandbox(foreign), (String) null).status());
        }
    }

    @Test
    void sandboxClockAndWebhooks() throws Exception {
        TestClock clock = new TestClock();
        try (Service svc = new Service("{\"sandbox_send_after\":10,\"sandbox_answer_after\":20}", null, null,
                clock)) {
            Map<String, String> h = sandbox(svc.createAccount("A").key());
            Service.Response w = svc.handle("POST", "/v1/webhooks", h,
                    "{\"url\":\"https://erp.example.test/h\",\"events\":[\"factura.approved\"]}");
            assertEquals(201, w.status(), w::text);
            String secret = w.json().get("data").get("secret").asText();
            String id = svc.handle("POST", "/v1/facturas", h, factura(null)).json().get("data").get("id").asText();
            clock.unix.set(NOW + 9);
            assertEquals("pending", svc.handle("GET", "/v1/facturas/" + id, h, (String) null).json().get("data")
                    .get("status").asText());
            clock.unix.set(NOW + 20);
            svc.tick();
            assertEquals("approved", svc.handle("GET", "/v1/facturas/" + id, h, (String) null).json().get("data")
                    .get("status").asText());

            JsonNode due = svc.dueDeliveries();
            assertEquals(1, due.size(), due::toString);
            JsonNode d = due.get(0);
            String sig = null;
            for (JsonNode kv : d.get("headers")) {
                if (kv.get(0).asText().equals("Kuatia-Signature")) {
                    sig = kv.get(1).asText();
                }
            }
            // Recomputed with the JDK's own HMAC: t=<timestamp>,v1=hex(HMAC-SHA256(secret, "t.body")).
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            String t = Long.toString(NOW + 20);
            byte[] v1 = mac.doFinal((t + "." + d.get("body").asText()).getBytes(StandardCharsets.UTF_8));
            assertEquals("t=" + t + ",v1=" + HexFormat.of().formatHex(v1), sig);

            JsonNode again = svc.reportDelivery(d.get("id").asText(), false);
            assertEquals("pending", again.get("status").asText());
            assertEquals(NOW + 20 + 60, again.get("next_attempt_at").asLong());
            assertEquals("delivered", svc.reportDelivery(d.get("id").asText(), true).get("status").asText());
            KuatiaException e = assertThrows(KuatiaException.class, () -> svc.reportDelivery("dlv_nope", true));
            assertEquals(Status.INVALID_INPUT, e.status());
            assertEquals("NOT_FOUND", e.code());
        }
    }

    @Test
    void keysErrorsAndClose() {
        Service svc = new Service();
        Service.Account acct = svc.createAccount("A");
        assertTrue(svc.createKey(acct.id(), true).startsWith("dk_live_"));
        assertTrue(svc.createKey(acct.id(), false).startsWith("dk_test_"));
        KuatiaException e = assertThrows(KuatiaException.class, () -> svc.createKey("acct_nobody", false));
        assertEquals("NOT_FOUND", e.code());
        assertEquals("account_id", e.path());
        KuatiaException bad = assertThrows(KuatiaException.class,
                () -> new Service("{\"colour\":\"red\"}", null, null, null));
        assertEquals("config.colour", bad.path());
        svc.close();
        svc.close();
        assertTrue(svc.isClosed());
        assertThrows(IllegalStateException.class, () -> svc.createAccount("B"));
        Signer closed = Signer.sandbox();
        closed.close();
        try (Service s2 = new Service(null, closed, null, null)) {
            assertThrows(IllegalStateException.class, () -> s2.handle("GET", "/v1/health", null, (String) null));
        }
    }

    @Test
    void oneServiceManyThreads() throws Exception {
        try (Service svc = new Service()) {
            Map<String, String> h = sandbox(svc.createAccount("A").key());
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<String>>> futures = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    futures.add(pool.submit(() -> {
                        List<String> mine = new ArrayList<>();
                        for (int i = 0; i < 3; i++) {
                            Service.Response r = svc.handle("POST", "/v1/facturas", h, factura("approved"));
                            assertEquals(201, r.status(), r::text);
                            mine.add(r.json().get("data").get("numero").asText());
                        }
                        return mine;
                    }));
                }
                List<String> all = new ArrayList<>();
                for (Future<List<String>> f : futures) {
                    all.addAll(f.get());
                }
                Collections.sort(all);
                List<String> want = new ArrayList<>();
                for (int n = 1; n <= 12; n++) {
                    want.add(String.format("001-001-%07d", n));
                }
                assertEquals(want, all);
            } finally {
                pool.shutdown();
            }
        }
    }

    // --- production invoices through the host: dueSifen / reportSifen ------------------------------------------

    private static final String SAMPLE_CDC = "01444444017001001000000122025031011234567890";

    /**
     * An account whose live key issues with the built-in sandbox profile (SIFEN's test environment); the sandbox
     * test certificate signs as the production one. Returns the live key.
     */
    private static String liveAccount(Service svc) {
        Service.Account acct = svc.createAccount("Emisor");
        String live = svc.createKey(acct.id(), true);
        svc.setProductionProfile(acct.id(), null);
        return live;
    }

    private static Map<String, String> live(String key) {
        return Map.of("Authorization", "Bearer " + key);
    }

    @Test
    void sifenApprovalRoundTrip() throws Exception {
        TestClock clock = new TestClock();
        try (Signer signer = Signer.sandbox();
                Service svc = new Service("{\"sifen_retry\":[1]}", null, signer, clock)) {
            String key = liveAccount(svc);
            Service.Response r = svc.handle("POST", "/v1/facturas", live(key), factura(null));
            assertEquals(201, r.status(), r::text);
            JsonNode d = r.json().get("data");
            assertEquals("pending", d.get("status").asText());
            String id = d.get("id").asText();
            String cdc = d.get("cdc").asText();

            List<JsonNode> jobs = svc.dueSifen(10);
            assertEquals(1, jobs.size(), jobs::toString);
            JsonNode job = jobs.get(0);
            assertEquals("recibe", job.get("service").asText());
            assertEquals("https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl", job.get("url").asText());
            assertEquals(id, job.get("invoices").get(0).asText());
            assertTrue(job.get("body").asText().contains("<DE Id=\"" + cdc + "\""), job::toString);
            assertEquals(List.of(), svc.dueSifen(10), "in flight");

            String sample = java.nio.file.Files.readString(
                    Fixtures.root().resolve("core/tests/sifen_samples/recibe_aprobado.xml"), StandardCharsets.UTF_8);
            byte[] answer = sample.replace(SAMPLE_CDC, cdc).getBytes(StandardCharsets.UTF_8);
            clock.unix.addAndGet(1);
            List<JsonNode> progress = svc.reportSifen(job, SifenOutcome.answer(200, answer));
            assertEquals(1, progress.size());
            assertEquals(id, progress.get(0).get("invoice_id").asText());
            assertEquals("approved", progress.get(0).get("status").asText());
            assertEquals("idle", progress.get(0).get("transmission").get("next").asText());
            JsonNode inv = svc.handle("GET", "/v1/facturas/" + id, live(key), (String) null).json().get("data");
            assertEquals("approved", inv.get("status").asText());
            assertEquals("1234567890", inv.get("protocolo").asText());
        }
    }

    @Test
    void sifenTimeoutIsQueriedByCdcAfterTheBackoff() {
        TestClock clock = new TestClock();
        try (Signer signer = Signer.sandbox();
                Service svc = new Service("{\"sifen_retry\":[1]}", null, signer, clock)) {
            String key = liveAccount(svc);
            String cdc = svc.handle("POST", "/v1/facturas", live(key), factura(null)).json().get("data")
                    .get("cdc").asText();
            JsonNode job = svc.dueSifen(10).get(0);
            JsonNode p = svc.reportSifen(job, SifenOutcome.timeout()).get(0);
            assertEquals("pending", p.get("status").asText());
            assertEquals("query", p.get("transmission").get("next").asText());
            assertEquals(NOW + 1, p.get("transmission").get("due_at").asLong());
            assertEquals(List.of(), svc.dueSifen(10), "before the back-off");
            clock.unix.addAndGet(1);
            JsonNode query = svc.dueSifen(10).get(0);
            assertEquals("consulta", query.get("service").asText());
            assertTrue(query.get("body").asText().contains(cdc));
            p = svc.reportSifen(query, SifenOutcome.failed("connection refused")).get(0);
            assertEquals("transport: connection refused", p.get("transmission").get("last_error").asText());
            assertEquals(2, p.get("transmission").get("attempts").asInt());
        }
    }

    @Test
    void sifenErrors() {
        try (Service svc = new Service()) {
            Service.Account acct = svc.createAccount("A");
            KuatiaException e = assertThrows(KuatiaException.class,
                    () -> svc.setProductionProfile("acct_nobody", null));
            assertEquals("NOT_FOUND", e.code());
            e = assertThrows(KuatiaException.class, () -> svc.setProductionProfile(acct.id(), "{\"ruc\":1}"));
            assertEquals(Status.INVALID_INPUT, e.status());
            assertTrue(e.path().startsWith("profile"), e.path());
            JsonNode job = Ffi.parse("{\"account_id\":\"acct_x\",\"service\":\"recibe\",\"url\":\"https://x\","
                    + "\"content_type\":\"application/xml\",\"body\":\"<x/>\",\"d_id\":1,\"invoices\":[]}");
            assertEquals(List.of(), svc.reportSifen(job, SifenOutcome.timeout()));
            e = assertThrows(KuatiaException.class, () -> svc.reportSifen(Ffi.parse("{}"), SifenOutcome.timeout()));
            assertEquals(Status.INVALID_INPUT, e.status());
            assertThrows(IllegalArgumentException.class, () -> SifenOutcome.answer(70000, new byte[0]));
            assertThrows(NullPointerException.class, () -> SifenOutcome.failed(null));
            assertThrows(IllegalArgumentException.class, () -> svc.dueSifen(-1));
        }
    }
}
