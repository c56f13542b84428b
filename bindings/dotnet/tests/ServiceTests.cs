// The in-process /v1 service through Kuatia.Service: the shared flow of tests/fixtures/service_flow.json (every
// binding replays it and compares with the same values), webhooks, keys and the production SIFEN round trip.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;

namespace Kuatia.Tests
{
    internal static class ServiceTests
    {
        private const long Now = 1741612260; // 2025-03-10 13:11:00 UTC = 10:11 in Asunción
        private const string SampleCdc = "01444444017001001000000122025031011234567890";

        private static string Factura(string simulate = null)
        {
            var f = Json.ParseObject(Json.Serialize(Fixtures.Obj(Json.Parse(Fixtures.Text("tests", "fixtures", "service_flow.json")), "factura")));
            if (simulate != null)
            {
                f["_simulate"] = simulate;
            }
            return Json.Serialize(f);
        }

        [Test]
        public static void SharedServiceFlow()
        {
            var flow = Json.ParseObject(Fixtures.Text("tests", "fixtures", "service_flow.json"));
            long now = (long)flow["now"];
            using (var signer = Signer.Sandbox())
            using (var svc = new Service(null, signer, null, () => now))
            {
                string key = svc.CreateAccount("Empresa de prueba").Key;
                var h = Fixtures.SandboxHeaders(key);
                var wh = Fixtures.Obj(flow, "webhook");
                var hook = svc.CreateWebhook(h, (string)wh["url"], ((IList<object>)wh["events"]).Cast<string>());
                string prefix = Fixtures.Str(Fixtures.Obj(flow, "rotate"), "secret_prefix");
                Assert.True(((string)hook["secret"]).StartsWith(prefix, StringComparison.Ordinal), "secret prefix");
                var simulate = ((IList<object>)flow["simulate"]).Cast<string>().ToList();
                var created = new List<IDictionary<string, object>>();
                for (int i = 0; i < simulate.Count; i++)
                {
                    var req = Json.ParseObject(Json.Serialize(flow["factura"]));
                    req["_simulate"] = simulate[i];
                    created.Add(svc.CreateInvoice(h, Json.Serialize(req), "flow-" + i));
                }
                Assert.Equal(string.Join(",", simulate), string.Join(",", created.Select(c => (string)c["status"])), "statuses");

                // List with a filter, walking the cursor page by page.
                var lst = Fixtures.Obj(flow, "list");
                var filters = Fixtures.Obj(lst, "filters");
                var pages = new List<object>();
                var more = new List<object>();
                string cursor = null;
                while (true)
                {
                    var page = svc.ListInvoices(h, new InvoiceFilter
                    {
                        Status = (string)filters["status"], Limit = (int)(long)filters["limit"], StartingAfter = cursor,
                    });
                    pages.Add(page.Data.Select(f => Fixtures.Str(f, "numero")).ToList());
                    more.Add(page.HasMore);
                    if (!page.HasMore)
                    {
                        break;
                    }
                    cursor = page.NextCursor;
                }
                Assert.Equal(Json.Serialize(lst["pages"]), Json.Serialize(pages), "pages");
                Assert.Equal(Json.Serialize(lst["has_more"]), Json.Serialize(more), "has_more");

                var inv = svc.GetInvoice(h, (string)created[0]["id"]);
                var want = Fixtures.Obj(flow, "invoice");
                foreach (string k in new[] { "status", "numero", "total", "moneda" })
                {
                    Assert.Equal(want[k], inv[k], k);
                }
                Assert.Equal(want["receptor_ruc"], Fixtures.Obj(inv, "receptor")["ruc"], "receptor ruc");
                Assert.Equal((int)(long)want["items"], Fixtures.List(inv, "items").Count, "items");
                Assert.Equal(created[0]["cdc"], inv["cdc"], "cdc");

                string xml = Encoding.UTF8.GetString(svc.InvoiceXml(h, (string)inv["id"]));
                foreach (object part in Fixtures.List(Fixtures.Obj(flow, "xml"), "contains"))
                {
                    Assert.True(xml.Contains((string)part), "xml contains " + part);
                }
                Assert.True(xml.Contains((string)inv["cdc"]), "xml carries the cdc");
                var r = svc.Handle("GET", "/v1/facturas/" + inv["id"] + "/xml", h);
                Assert.True(r.Header("content-type").StartsWith(Fixtures.Str(Fixtures.Obj(flow, "xml"), "content_type"), StringComparison.Ordinal), "content type");

                // Webhooks: the approved invoices' deliveries, a rotation, a redelivery, then the deletion.
                Assert.Equal(wh["url"], svc.GetWebhook(h, (string)hook["id"])["url"], "webhook url");
                var log = svc.Deliveries(h, (string)hook["id"]);
                var dl = Fixtures.Obj(flow, "deliveries");
                Assert.Equal((int)(long)dl["count"], log.Data.Count, "deliveries");
                Assert.True(log.Data.All(d => Fixtures.Str(d, "type") == (string)dl["type"]), "delivery types");
                var rotated = svc.RotateWebhook(h, (string)hook["id"]);
                Assert.True(((string)rotated["secret"]).StartsWith(prefix, StringComparison.Ordinal) && (string)rotated["secret"] != (string)hook["secret"], "rotated secret");
                Assert.True(rotated["previous_secret_expires_at"] != null, "grace period");
                var first = (IDictionary<string, object>)log.Data[log.Data.Count - 1];
                var again = svc.Redeliver(h, (string)hook["id"], (string)first["id"]);
                Assert.Equal(Fixtures.Str(Fixtures.Obj(flow, "redeliver"), "status"), again["status"], "redelivery status");
                Assert.True((string)again["event_id"] == (string)first["event_id"] && (string)again["id"] != (string)first["id"], "same event, new delivery");
                var deleted = svc.DeleteWebhook(h, (string)hook["id"]);
                Assert.True(deleted.Count == 2 && (string)deleted["id"] == (string)hook["id"] && (bool)deleted["deleted"], "deleted");

                // Errors are the core's: a bad filter value, a deleted webhook.
                var bad = Fixtures.Obj(flow, "bad_filter");
                var e = Assert.Throws<ApiException>(() => svc.ListInvoices(h, new InvoiceFilter { Status = Fixtures.Str(Fixtures.Obj(bad, "filters"), "status") }), "bad filter");
                Assert.Equal((int)(long)bad["status"], e.Status, "bad filter status");
                Assert.Equal(bad["code"], e.Code, "bad filter code");
                var gone = Fixtures.Obj(flow, "deleted_get");
                e = Assert.Throws<ApiException>(() => svc.GetWebhook(h, (string)hook["id"]), "deleted webhook");
                Assert.Equal((int)(long)gone["status"], e.Status, "gone status");
                Assert.Equal(gone["code"], e.Code, "gone code");
            }

            // Without a signer (as in the browser) the sandbox keeps no XML.
            using (var svc = new Service(null, null, null, () => now))
            {
                var h = Fixtures.SandboxHeaders(svc.CreateAccount("Sin firma").Key);
                var inv = svc.CreateInvoice(h, Factura("approved"));
                var unsigned = Fixtures.Obj(flow, "xml_unsigned");
                var e = Assert.Throws<ApiException>(() => svc.InvoiceXml(h, (string)inv["id"]), "no XML");
                Assert.Equal((int)(long)unsigned["status"], e.Status, "status");
                Assert.Equal(unsigned["code"], e.Code, "code");
            }
        }

        [Test]
        public static void SharedEmailFlow()
        {
            var flow = Json.ParseObject(Fixtures.Text("tests", "fixtures", "service_flow.json"));
            var mail = Fixtures.Obj(flow, "email");
            long now = (long)flow["now"];
            long t = now;
            using (var signer = Signer.Sandbox())
            using (var svc = new Service(null, signer, null, () => t))
            {
                var h = Fixtures.SandboxHeaders(svc.CreateAccount("Empresa de prueba").Key);
                var factura = Json.ParseObject(Json.Serialize(flow["factura"]));
                Fixtures.Obj(factura, "receptor")["email"] = mail["to"];
                var inv = svc.CreateInvoice(h, Json.Serialize(factura));
                string id = (string)inv["id"];
                Assert.Equal(0, svc.InvoiceEmails(h, id).Count, "no message before approval");

                // The simulated SIFEN approves it; the approval captures the buyer's message (nothing sends in-process).
                t = now + Fixtures.Long(mail, "tick_after");
                svc.Tick();
                Assert.Equal(mail["status"], svc.GetInvoice(h, id)["status"], "status");
                var keys = new[] { "kind", "status", "to", "attempts" };
                Func<object, IDictionary<string, object>> pick =
                    m => keys.ToDictionary(k => k, k => ((IDictionary<string, object>)m)[k]);
                var messages = svc.InvoiceEmails(h, id);
                Assert.Equal(Json.Serialize(mail["messages"]), Json.Serialize(messages.Select(pick).ToList()), "messages");
                string subject = Fixtures.Str(messages[0], "subject");
                foreach (object part in Fixtures.List(mail, "subject_contains"))
                {
                    Assert.True(subject.Contains((string)part), "subject contains " + part);
                }
                Assert.True(Fixtures.Str(messages[0], "body").Contains((string)inv["cdc"]), "body carries the cdc");

                t += 1;
                var again = svc.ResendEmail(h, id, (string)mail["resend_to"]);
                Assert.Equal(Json.Serialize(mail["resend"]), Json.Serialize(pick(again)), "resend");
                var bad = Fixtures.Obj(mail, "resend_bad");
                var e = Assert.Throws<ApiException>(() => svc.ResendEmail(h, id, (string)bad["to"]), "bad address");
                Assert.Equal((int)(long)bad["status"], e.Status, "bad address status");
                Assert.Equal(bad["code"], e.Code, "bad address code");
                var after = svc.InvoiceEmails(h, id);
                Assert.Equal(Fixtures.Str(messages[0], "id") + "," + again["id"],
                    string.Join(",", after.Select(m => Fixtures.Str(m, "id"))), "both messages");
                var email = Fixtures.Obj(svc.GetInvoice(h, id), "email");
                var latest = Fixtures.Obj(mail, "invoice_email");
                Assert.Equal(latest["status"], email["status"], "invoice email status");
                Assert.Equal(latest["to"], email["to"], "invoice email to");

                var archive = Fixtures.Obj(mail, "archive");
                byte[] zipped = svc.MonthArchive(h, (string)archive["mes"]);
                string magic = (string)archive["magic"];
                Assert.True(zipped.Length >= magic.Length
                    && zipped.Take(magic.Length).SequenceEqual(magic.Select(c => (byte)c)), "zip magic");
                Assert.Equal(string.Join(",", Fixtures.List(archive, "members").Select(m => ((string)m).Replace("{cdc}", (string)inv["cdc"]))),
                    string.Join(",", ZipNames(zipped)), "archive members");
                var r = svc.Handle("GET", "/v1/archivo?mes=" + archive["mes"], h);
                Assert.Equal(archive["content_type"], r.Header("content-type"), "archive content type");
                e = Assert.Throws<ApiException>(() => svc.MonthArchive(h, "2025-13"), "bad month");
                Assert.Equal(400, e.Status, "bad month status");
                Assert.Equal("INVALID_QUERY", e.Code, "bad month code");
            }
        }

        /// <summary>The member names of a zip, in order, read from its central directory (System.IO.Compression is not
        /// among Mono's default references).</summary>
        private static List<string> ZipNames(byte[] zip)
        {
            Func<int, int> u16 = at => zip[at] | zip[at + 1] << 8;
            Func<int, int> u32 = at => u16(at) | u16(at + 2) << 16;
            int end = zip.Length - 22;
            while (end >= 0 && u32(end) != 0x06054b50)
            {
                end--;
            }
            Assert.True(end >= 0, "no end of central directory record");
            var names = new List<string>();
            int p = u32(end + 16);
            for (int i = u16(end + 10); i > 0; i--)
            {
                Assert.Equal(0x02014b50, u32(p), "a central directory header");
                int nameLen = u16(p + 28);
                names.Add(Encoding.UTF8.GetString(zip, p + 46, nameLen));
                p += 46 + nameLen + u16(p + 30) + u16(p + 32);
            }
            return names;
        }

        [Test]
        public static void CreateInvoiceReportsEveryFinding()
        {
            using (var svc = new Service(clock: () => Now))
            {
                var h = Fixtures.SandboxHeaders(svc.CreateAccount("A").Key);
                var bad = Json.Serialize(Fixtures.Case("invalid_every_finding")["request"]);
                var e = Assert.Throws<ApiException>(() => svc.CreateInvoice(h, bad), "invalid invoice");
                Assert.Equal(422, e.Status, "422");
                // The envelope's code is the core's pick among the findings (INVALID_RUC before VALIDATION_ERROR, see
                // docs/api.md), and details carry every finding as validation reports them.
                var want = Fixtures.List(Fixtures.Obj(Fixtures.Case("invalid_every_finding"), "expected"), "errors");
                Assert.Equal("INVALID_RUC", e.Code, "code");
                Assert.Equal(string.Join(" ", want.Select(f => Fixtures.Str(f, "code") + "@" + Fixtures.Str(f, "path"))),
                    string.Join(" ", e.Details.Select(f => Fixtures.Str(f, "code") + "@" + Fixtures.Str(f, "path"))), "every finding in details");
                var r = svc.Handle("GET", "/v1/facturas");
                Assert.Equal(401, r.Status, "no key");
                Assert.Equal("UNAUTHORIZED", Fixtures.Str(r.Json()["error"], "code"), "code");
                Assert.Equal("Bearer", r.Header("www-authenticate"), "challenge");
            }
        }

        [Test]
        public static void SpecFlowKudeAndClock()
        {
            long t = Now;
            using (var signer = Signer.Sandbox())
            using (var svc = new Service("{\"base_url\":\"https://erp.example.test\",\"sandbox_send_after\":10,\"sandbox_answer_after\":20}", signer, null, () => t))
            {
                var acct = svc.CreateAccount("Empresa de prueba");
                Assert.True(acct.Id.StartsWith("acct_", StringComparison.Ordinal) && acct.Key.StartsWith("dk_test_", StringComparison.Ordinal), "account");
                var h = Fixtures.SandboxHeaders(acct.Key);
                var r = svc.Handle("POST", "/v1/facturas", h, Factura("approved"));
                Assert.Equal(201, r.Status, "created");
                Assert.Equal("application/json; charset=utf-8", r.Header("content-type"), "content type");
                var data = Fixtures.Obj(r.Json(), "data");
                Assert.Equal("approved", data["status"], "approved");
                Assert.Equal("https://erp.example.test/v1/facturas/" + data["id"] + "/kude", data["kude_url"], "kude_url");
                Assert.Equal("44444401-7", Cdc.Parse((string)data["cdc"])["ruc"], "sandbox emitter");
                var k = svc.Handle("GET", "/v1/facturas/" + data["id"] + "/kude", h);
                Assert.Equal(200, k.Status, "kude");
                Assert.Equal("application/pdf", k.Header("Content-Type"), "pdf");
                Assert.True(Encoding.ASCII.GetString(k.Body, 0, 5) == "%PDF-", "a PDF");

                // The simulated SIFEN advances with the given clock.
                string id = (string)svc.CreateInvoice(h, Factura())["id"];
                Func<string> status = () => (string)svc.GetInvoice(h, id)["status"];
                t = Now + 9;
                Assert.Equal("pending", status(), "pending");
                t = Now + 10;
                Assert.Equal("sent", status(), "sent");
                t = Now + 20;
                svc.Tick();
                Assert.Equal("approved", status(), "approved");
            }
        }

        [Test]
        public static void WebhooksDueSignedAndReported()
        {
            long t = Now;
            using (var svc = new Service(clock: () => t))
            {
                var h = Fixtures.SandboxHeaders(svc.CreateAccount("A").Key);
                string secret = (string)svc.CreateWebhook(h, "https://erp.example.test/h", new[] { "factura.approved" })["secret"];
                svc.CreateInvoice(h, Factura("approved"));
                var due = svc.DueDeliveries();
                Assert.Equal(1, due.Count, "one delivery");
                var d = (IDictionary<string, object>)due[0];
                Assert.Equal("factura.approved", Fixtures.Str(Json.Parse((string)d["body"]), "type"), "type");
                string sig = ((IList<object>)d["headers"]).Cast<IList<object>>().First(p => (string)p[0] == "Kuatia-Signature")[1] as string;
                // Recomputed with .NET's own HMAC: t=<timestamp>,v1=hex(HMAC-SHA256(secret, "t.body")).
                using (var mac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
                {
                    string hex = string.Concat(mac.ComputeHash(Encoding.UTF8.GetBytes(Now + "." + d["body"])).Select(b => b.ToString("x2")));
                    Assert.Equal("t=" + Now + ",v1=" + hex, sig, "signature");
                }
                var again = svc.ReportDelivery((string)d["id"], false);
                Assert.Equal("pending", again["status"], "pending");
                Assert.Equal(Now + 60, again["next_attempt_at"], "retry in 60 s");
                t = Now + 59;
                Assert.Equal(0, svc.DueDeliveries().Count, "not yet due");
                Assert.Equal("delivered", svc.ReportDelivery((string)d["id"], true)["status"], "delivered");
                Assert.Equal("NOT_FOUND", Assert.Throws<InvalidInputException>(() => svc.ReportDelivery("dlv_nope", true), "unknown").Code, "code");
            }
        }

        [Test]
        public static void KeysErrorsAndLifeCycle()
        {
            var svc = new Service(clock: () => Now);
            var acct = svc.CreateAccount("A");
            Assert.True(svc.CreateKey(acct.Id, true).StartsWith("dk_live_", StringComparison.Ordinal), "live key");
            Assert.True(svc.CreateKey(acct.Id).StartsWith("dk_test_", StringComparison.Ordinal), "test key");
            var e = Assert.Throws<InvalidInputException>(() => svc.CreateKey("acct_nobody"), "unknown account");
            Assert.Equal("NOT_FOUND", e.Code, "code");
            Assert.Equal("account_id", e.Path, "path");
            e = Assert.Throws<InvalidInputException>(() => new Service("{\"colour\":\"red\"}"), "bad config");
            Assert.Equal("config.colour", e.Path, "config path");
            svc.Dispose();
            svc.Dispose();
            Assert.True(svc.IsDisposed, "disposed");
            Assert.Throws<ObjectDisposedException>(() => svc.CreateAccount("B"), "use after dispose");
        }

        private static Service LiveService(Signer signer, Func<long> clock, out Dictionary<string, string> headers)
        {
            var svc = new Service("{\"sifen_retry\":[1]}", null, signer, clock);
            var acct = svc.CreateAccount("Emisor");
            string live = svc.CreateKey(acct.Id, true);
            svc.SetProductionProfile(acct.Id, null);
            headers = new Dictionary<string, string> { { "Authorization", "Bearer " + live } };
            return svc;
        }

        [Test]
        public static void SifenApprovalRoundTrip()
        {
            long t = Now;
            using (var signer = Signer.Sandbox())
            {
                Dictionary<string, string> h;
                using (var svc = LiveService(signer, () => t, out h))
                {
                    var created = svc.CreateInvoice(h, Factura());
                    Assert.Equal("pending", created["status"], "pending");
                    var jobs = svc.DueSifen(10);
                    Assert.Equal(1, jobs.Count, "one job");
                    var job = (IDictionary<string, object>)jobs[0];
                    Assert.Equal("recibe", job["service"], "recibe");
                    Assert.Equal("https://sifen-test.set.gov.py/de/ws/sync/recibe.wsdl", job["url"], "url");
                    Assert.Equal("[\"" + created["id"] + "\"]", Json.Serialize(job["invoices"]), "invoices");
                    Assert.True(((string)job["body"]).Contains("<DE Id=\"" + created["cdc"] + "\""), "DE");
                    Assert.Equal(0, svc.DueSifen(10).Count, "in flight");
                    string answer = File.ReadAllText(Fixtures.PathOf("core", "tests", "sifen_samples", "recibe_aprobado.xml"), Encoding.UTF8)
                        .Replace(SampleCdc, (string)created["cdc"]);
                    t = Now + 1;
                    var progress = svc.ReportSifen(job, SifenJobOutcome.Answer(200, Encoding.UTF8.GetBytes(answer)));
                    var p = (IDictionary<string, object>)progress.Single();
                    Assert.Equal(created["id"], p["invoice_id"], "invoice");
                    Assert.Equal("approved", p["status"], "approved");
                    Assert.Equal("idle", Fixtures.Obj(p, "transmission")["next"], "idle");
                    t = Now + 2;
                    var inv = svc.GetInvoice(h, (string)created["id"]);
                    Assert.Equal("approved", inv["status"], "stored");
                    Assert.Equal("1234567890", inv["protocolo"], "protocolo");
                }
            }
        }

        [Test]
        public static void SifenTimeoutIsQueriedByCdcAfterTheBackoff()
        {
            long t = Now;
            using (var signer = Signer.Sandbox())
            {
                Dictionary<string, string> h;
                using (var svc = LiveService(signer, () => t, out h))
                {
                    var data = svc.CreateInvoice(h, Factura());
                    var job = (IDictionary<string, object>)svc.DueSifen(10).Single();
                    var p = (IDictionary<string, object>)svc.ReportSifen(job, SifenJobOutcome.Timeout()).Single();
                    Assert.Equal("pending", p["status"], "pending");
                    Assert.Equal("query", Fixtures.Obj(p, "transmission")["next"], "query next");
                    Assert.Equal(Now + 1, Fixtures.Obj(p, "transmission")["due_at"], "due_at");
                    Assert.Equal(0, svc.DueSifen(10).Count, "not yet");
                    t = Now + 1;
                    var query = (IDictionary<string, object>)svc.DueSifen(10).Single();
                    Assert.True((string)query["service"] == "consulta" && ((string)query["body"]).Contains((string)data["cdc"]), "consulta");
                    // Raw bytes that are not UTF-8 travel as they are; a transport failure keeps its message.
                    p = (IDictionary<string, object>)svc.ReportSifen(query, SifenJobOutcome.Answer(502, new byte[] { 0x3c, 0x68, 0xff, 0x3e })).Single();
                    Assert.True(((string)Fixtures.Obj(p, "transmission")["last_error"]).StartsWith("HTTP 502", StringComparison.Ordinal), "HTTP 502");
                    t = Now + 2;
                    query = (IDictionary<string, object>)svc.DueSifen(10).Single();
                    p = (IDictionary<string, object>)svc.ReportSifen(query, SifenJobOutcome.Failed("connection refused")).Single();
                    Assert.Equal("transport: connection refused", Fixtures.Obj(p, "transmission")["last_error"], "transport");
                    Assert.Equal(3L, Fixtures.Obj(p, "transmission")["attempts"], "attempts");
                }
            }
        }

        [Test]
        public static void SifenArgumentErrors()
        {
            using (var svc = new Service(clock: () => Now))
            {
                var acct = svc.CreateAccount("A");
                Assert.Equal("NOT_FOUND", Assert.Throws<InvalidInputException>(() => svc.SetProductionProfile("acct_nobody", null), "nobody").Code, "code");
                var e = Assert.Throws<InvalidInputException>(() => svc.SetProductionProfile(acct.Id, "{\"ruc\":1}"), "bad profile");
                Assert.True(e.Path.StartsWith("profile", StringComparison.Ordinal), "path " + e.Path);
                var job = Json.ParseObject("{\"account_id\":\"acct_x\",\"service\":\"recibe\",\"url\":\"https://x\",\"content_type\":\"application/xml\",\"body\":\"<x/>\",\"d_id\":1,\"invoices\":[]}");
                Assert.Equal(0, svc.ReportSifen(job, SifenJobOutcome.Timeout()).Count, "nothing to report");
                Assert.Equal("MALFORMED_JSON", Assert.Throws<InvalidInputException>(() => svc.ReportSifen("{", SifenJobOutcome.Timeout()), "bad job").Code, "code");
                Assert.Throws<ArgumentOutOfRangeException>(() => svc.DueSifen(-1), "negative limit");
                Assert.Throws<ArgumentNullException>(() => svc.ReportSifen(job, null), "null outcome");
                Assert.Throws<ArgumentNullException>(() => svc.ReportSifen((string)null, SifenJobOutcome.Timeout()), "null job");
            }
        }

        [Test]
        public static void OneServiceManyThreads()
        {
            using (var svc = new Service(clock: () => Now))
            {
                var h = Fixtures.SandboxHeaders(svc.CreateAccount("A").Key);
                var numbers = new List<string>();
                var threads = Enumerable.Range(0, 4).Select(_ => new System.Threading.Thread(() =>
                {
                    for (int i = 0; i < 3; i++)
                    {
                        string n = (string)svc.CreateInvoice(h, Factura("approved"))["numero"];
                        lock (numbers)
                        {
                            numbers.Add(n);
                        }
                    }
                })).ToList();
                threads.ForEach(th => th.Start());
                threads.ForEach(th => th.Join());
                numbers.Sort(StringComparer.Ordinal);
                Assert.Equal(string.Join(",", Enumerable.Range(1, 12).Select(n => "001-001-" + n.ToString("D7"))), string.Join(",", numbers), "distinct numbers");
            }
        }
    }
}
