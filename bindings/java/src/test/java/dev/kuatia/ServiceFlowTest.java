package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;

/**
 * The typed calls of Service drive the shared flow of tests/fixtures/service_flow.json (every binding replays it and
 * compares with the same values): create, list with a filter and a cursor, get, xml, webhook
 * get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core; then its {@code email} part: the
 * buyer's messages captured in-process, a resend, and the month's archive.
 */
class ServiceFlowTest {
    @Test
    void sharedServiceFlow() {
        JsonNode flow = Fixtures.json(Fixtures.root().resolve("tests/fixtures/service_flow.json"));
        Clock clock = Clock.fixed(Instant.ofEpochSecond(flow.get("now").asLong()), ZoneOffset.UTC);
        try (Signer signer = Signer.sandbox(); Service svc = new Service(null, signer, null, clock)) {
            String key = svc.createAccount("Empresa de prueba").key();
            Map<String, String> h = Map.of("Authorization", "Bearer " + key, "X-Environment", "sandbox");
            List<String> events = new ArrayList<>();
            flow.at("/webhook/events").forEach(e -> events.add(e.asText()));
            JsonNode hook = svc.createWebhook(h, flow.at("/webhook/url").asText(), events);
            String prefix = flow.at("/rotate/secret_prefix").asText();
            assertTrue(hook.get("secret").asText().startsWith(prefix));
            List<JsonNode> created = new ArrayList<>();
            int i = 0;
            for (JsonNode sim : flow.get("simulate")) {
                ObjectNode req = flow.get("factura").deepCopy();
                req.put("_simulate", sim.asText());
                JsonNode inv = svc.createInvoice(h, req.toString(), "flow-" + i++);
                assertEquals(sim.asText(), inv.get("status").asText());
                created.add(inv);
            }

            // List with a filter, walking the cursor.
            JsonNode lst = flow.get("list");
            Service.InvoiceFilter filter = Service.InvoiceFilter.all()
                    .withStatus(lst.at("/filters/status").asText())
                    .withLimit(lst.at("/filters/limit").asInt());
            List<List<String>> pages = new ArrayList<>();
            List<Boolean> more = new ArrayList<>();
            while (true) {
                Page page = svc.listInvoices(h, filter);
                List<String> numeros = new ArrayList<>();
                page.data().forEach(f -> numeros.add(f.get("numero").asText()));
                pages.add(numeros);
                more.add(page.hasMore());
                if (!page.hasMore()) {
                    break;
                }
                filter = filter.withStartingAfter(page.nextCursor());
            }
            assertEquals(Fixtures.JSON.convertValue(lst.get("pages"), List.class), pages);
            assertEquals(Fixtures.JSON.convertValue(lst.get("has_more"), List.class), more);

            JsonNode inv = svc.getInvoice(h, created.get(0).get("id").asText());
            JsonNode want = flow.get("invoice");
            for (String f : List.of("status", "numero", "total", "moneda")) {
                assertEquals(want.get(f).asText(), inv.get(f).asText(), f);
            }
            assertEquals(want.get("receptor_ruc").asText(), inv.at("/receptor/ruc").asText());
            assertEquals(want.get("items").asInt(), inv.get("items").size());
            assertEquals(created.get(0).get("cdc"), inv.get("cdc"));
            String xml = new String(svc.invoiceXml(h, inv.get("id").asText()), StandardCharsets.UTF_8);
            flow.at("/xml/contains").forEach(p -> assertTrue(xml.contains(p.asText()), p.asText()));
            assertTrue(xml.contains(inv.get("cdc").asText()));
            Service.Response r = svc.handle("GET", "/v1/facturas/" + inv.get("id").asText() + "/xml", h,
                    (byte[]) null);
            assertTrue(r.header("content-type").startsWith(flow.at("/xml/content_type").asText()));

            // Webhooks: the deliveries, a rotation, a redelivery, the deletion.
            String id = hook.get("id").asText();
            assertEquals(flow.at("/webhook/url").asText(), svc.getWebhook(h, id).get("url").asText());
            Page log = svc.deliveries(h, id, null, null);
            assertEquals(flow.at("/deliveries/count").asInt(), log.data().size());
            log.data().forEach(d -> assertEquals(flow.at("/deliveries/type").asText(), d.get("type").asText()));
            JsonNode rotated = svc.rotateWebhook(h, id);
            assertTrue(rotated.get("secret").asText().startsWith(prefix));
            assertNotEquals(hook.get("secret"), rotated.get("secret"));
            assertTrue(rotated.get("previous_secret_expires_at").isTextual());
            JsonNode first = log.data().get(log.data().size() - 1);
            JsonNode again = svc.redeliver(h, id, first.get("id").asText());
            assertEquals(flow.at("/redeliver/status").asText(), again.get("status").asText());
            assertEquals(first.get("event_id"), again.get("event_id"));
            assertNotEquals(first.get("id"), again.get("id"));
            JsonNode deleted = svc.deleteWebhook(h, id);
            assertEquals(id, deleted.get("id").asText());
            assertTrue(deleted.get("deleted").asBoolean());

            // Errors are the core's.
            JsonNode bad = flow.get("bad_filter");
            ApiException e = assertThrows(ApiException.class, () -> svc.listInvoices(h,
                    Service.InvoiceFilter.all().withStatus(bad.at("/filters/status").asText())));
            assertEquals(bad.get("status").asInt(), e.status());
            assertEquals(bad.get("code").asText(), e.code());
            JsonNode gone = flow.get("deleted_get");
            e = assertThrows(ApiException.class, () -> svc.getWebhook(h, id));
            assertEquals(gone.get("status").asInt(), e.status());
            assertEquals(gone.get("code").asText(), e.code());
        }
    }

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        final AtomicLong unix;

        MovingClock(long unix) {
            this.unix = new AtomicLong(unix);
        }

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

    @Test
    void sharedEmailFlow() throws IOException {
        JsonNode flow = Fixtures.json(Fixtures.root().resolve("tests/fixtures/service_flow.json"));
        JsonNode mail = flow.get("email");
        MovingClock clock = new MovingClock(flow.get("now").asLong());
        try (Signer signer = Signer.sandbox(); Service svc = new Service(null, signer, null, clock)) {
            String key = svc.createAccount("Empresa de prueba").key();
            Map<String, String> h = Map.of("Authorization", "Bearer " + key, "X-Environment", "sandbox");
            ObjectNode req = flow.get("factura").deepCopy();
            ((ObjectNode) req.get("receptor")).put("email", mail.get("to").asText());
            JsonNode inv = svc.createInvoice(h, req.toString(), null);
            String id = inv.get("id").asText();
            String cdc = inv.get("cdc").asText();
            assertEquals(0, svc.invoiceEmails(h, id).size());

            // The simulated SIFEN approves it; the approval captures the buyer's message (nothing sends in-process).
            clock.unix.addAndGet(mail.get("tick_after").asLong());
            svc.tick();
            assertEquals(mail.get("status").asText(), svc.getInvoice(h, id).get("status").asText());
            JsonNode messages = svc.invoiceEmails(h, id);
            List<String> keys = List.of("kind", "status", "to", "attempts");
            assertEquals(mail.get("messages").size(), messages.size());
            for (int i = 0; i < messages.size(); i++) {
                for (String k : keys) {
                    assertEquals(mail.get("messages").get(i).get(k), messages.get(i).get(k), k);
                }
            }
            JsonNode first = messages.get(0);
            mail.get("subject_contains").forEach(p -> assertTrue(first.get("subject").asText().contains(p.asText())));
            assertTrue(first.get("body").asText().contains(cdc));

            clock.unix.incrementAndGet();
            JsonNode again = svc.resendEmail(h, id, mail.get("resend_to").asText());
            for (String k : keys) {
                assertEquals(mail.at("/resend/" + k), again.get(k), k);
            }
            JsonNode bad = mail.get("resend_bad");
            ApiException e = assertThrows(ApiException.class, () -> svc.resendEmail(h, id, bad.get("to").asText()));
            assertEquals(bad.get("status").asInt(), e.status());
            assertEquals(bad.get("code").asText(), e.code());
            JsonNode after = svc.invoiceEmails(h, id);
            assertEquals(2, after.size());
            assertEquals(first.get("id"), after.get(0).get("id"));
            assertEquals(again.get("id"), after.get(1).get("id"));
            JsonNode email = svc.getInvoice(h, id).get("email");
            assertEquals(mail.at("/invoice_email/status"), email.get("status"));
            assertEquals(mail.at("/invoice_email/to"), email.get("to"));

            JsonNode archive = mail.get("archive");
            byte[] zip = svc.monthArchive(h, archive.get("mes").asText());
            byte[] magic = archive.get("magic").asText().getBytes(StandardCharsets.ISO_8859_1);
            assertTrue(Arrays.equals(magic, Arrays.copyOf(zip, magic.length)), "a zip");
            List<String> names = new ArrayList<>();
            try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
                for (ZipEntry entry; (entry = in.getNextEntry()) != null; ) {
                    names.add(entry.getName());
                }
            }
            List<String> want = new ArrayList<>();
            archive.get("members").forEach(m -> want.add(m.asText().replace("{cdc}", cdc)));
            assertEquals(want, names);
            Service.Response r = svc.handle("GET", "/v1/archivo?mes=" + archive.get("mes").asText(), h, (byte[]) null);
            assertEquals(archive.get("content_type").asText(), r.header("content-type"));
        }
    }
}
