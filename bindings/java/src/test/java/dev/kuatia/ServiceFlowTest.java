package dev.kuatia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The typed calls of Service drive the shared flow of tests/fixtures/service_flow.json (every binding replays it and
 * compares with the same values): create, list with a filter and a cursor, get, xml, webhook
 * get/rotate/deliveries/redeliver/delete, and a bad filter answered by the core.
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
}
