// The C# API itself: identifiers, QR, signing, KuDE, SIFEN helpers, errors and the handles' life cycle (the same
// answers as bindings/python/tests/test_api.py).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;

namespace Kuatia.Tests
{
    internal static class ApiTests
    {
        private const string GoldenCdc = "01444444017001001000000122025031011234567890";
        private const string ForeignCdc = "01800695631001001000000122022081411234567891";

        private static IDictionary<string, object> Spec
        {
            get { return Fixtures.Case("fe_spec_example"); }
        }

        private static string SpecRequest
        {
            get { return Json.Serialize(Spec["request"]); }
        }

        [Test]
        public static void VersionAndStatusMatchTheHeader()
        {
            string header = Fixtures.Text("include", "kuatia.h");
            Assert.True(header.Contains("#define KUATIA_VERSION \"" + Library.Version() + "\""), "version " + Library.Version());
            Assert.True(Library.Version().StartsWith(Library.AbiVersion + ".", StringComparison.Ordinal), "ABI prefix");
            var declared = Regex.Matches(header, @"(?m)^\s+KUATIA_STATUS_(\w+) = (\d+),").Cast<Match>()
                .ToDictionary(m => m.Groups[1].Value.Replace("_", ""), m => int.Parse(m.Groups[2].Value));
            var mine = Enum.GetValues(typeof(Status)).Cast<Status>()
                .ToDictionary(s => s.ToString().ToUpperInvariant(), s => (int)s);
            Assert.Equal(Json.Serialize(declared.OrderBy(k => k.Key).Select(k => k.Key + "=" + k.Value)),
                Json.Serialize(mine.OrderBy(k => k.Key).Select(k => k.Key + "=" + k.Value)), "status numbers");
        }

        [Test]
        public static void RucDvAndCheck()
        {
            Assert.Equal(1, Ruc.Dv("80069563"), "DV of 80069563");
            Assert.Equal(7, Ruc.Dv("44444401"), "DV of 44444401");
            Assert.True(Ruc.IsValid("80069563-1"), "valid RUC");
            Assert.True(!Ruc.IsValid("80069563-2"), "wrong DV");
            var e = Assert.Throws<InvalidInputException>(() => Ruc.Dv("8006-563"), "bad body");
            Assert.Equal("INVALID_RUC", e.Code, "code");
            Assert.Equal(Status.InvalidInput, e.Status, "status");
            Assert.True(e.Findings.Count == 1 && e.Findings[0].Code == "INVALID_RUC", "findings");
            // An empty string is an empty input (a valid pointer of length 0), not a missing argument.
            e = Assert.Throws<InvalidInputException>(() => Ruc.Dv(""), "empty body");
            Assert.Equal("INVALID_RUC", e.Code, "empty code");
            Assert.Throws<ArgumentNullException>(() => Ruc.Dv(null), "null body");
            Assert.Throws<InvalidInputException>(() => Ruc.Check("80069563-2"), "Check throws");
        }

        [Test]
        public static void CdcBuildAndParse()
        {
            var fields = new Dictionary<string, object>
            {
                { "tipo_documento", 1 }, { "ruc", "44444401-7" }, { "establecimiento", 1 }, { "punto", 1 },
                { "numero", 1 }, { "tipo_contribuyente", 2 }, { "fecha", "2025-03-10" }, { "tipo_emision", 1 },
                { "codigo_seguridad", 123456789 },
            };
            string cdc = Cdc.Build(Json.Serialize(fields));
            Assert.Equal(GoldenCdc, cdc, "cdc");
            Assert.Equal(Fixtures.Str(Fixtures.Obj(Spec, "expected"), "cdc"), cdc, "the spec case's cdc");
            var parts = Cdc.Parse(cdc);
            Assert.Equal(1L, parts["numero"], "numero");
            Assert.Equal(123456789L, parts["codigo_seguridad"], "codigo_seguridad");
            Assert.Equal((long)(cdc[43] - '0'), parts["dv"], "dv");
            string wrong = cdc.Substring(0, 43) + (char)('0' + (cdc[43] - '0' + 1) % 10);
            Assert.Equal("INVALID_CDC", Assert.Throws<InvalidInputException>(() => Cdc.Parse(wrong), "bad dv").Code, "code");
            fields["numero"] = "uno";
            var e = Assert.Throws<InvalidInputException>(() => Cdc.Build(Json.Serialize(fields)), "numero uno");
            Assert.True(e.Path.StartsWith("numero", StringComparison.Ordinal), "path " + e.Path);
        }

        [Test]
        public static void QrBuildMatchesTheManualsExample()
        {
            var fields = new Dictionary<string, object>
            {
                { "cdc", "01444444017001001001452822017012515873260988" }, { "fecha_emision", "2017-01-25T09:35:17" },
                { "receptor", new Dictionary<string, object> { { "ruc", "88899990" } } }, { "total", "300000" },
                { "total_iva", "27272" }, { "items", 2 }, { "digest_value", "yzGYhUx1/XYYzksWB+fPR3Qc50c=" },
                { "csc_id", "0001" }, { "csc", Fixtures.SandboxCsc }, { "ambiente", "test" },
            };
            string qr = Qr.Build(Json.Serialize(fields));
            Assert.True(qr.StartsWith("https://ekuatia.set.gov.py/consultas-test/qr?", StringComparison.Ordinal), qr);
            int at = qr.LastIndexOf("&cHashQR=", StringComparison.Ordinal);
            string head = qr.Substring(qr.IndexOf('?') + 1, at - qr.IndexOf('?') - 1);
            // Independent check of cHashQR: SHA-256 over the parameters before it, followed by the CSC.
            Assert.Equal(Fixtures.Sha256(head + Fixtures.SandboxCsc), qr.Substring(at + 9), "cHashQR");
            Assert.Equal("97ddbb3c1e7d65af03a70ffe21f2b34846ab1c89e0566c35222086766b7374ed", qr.Substring(at + 9), "golden hash");
            var parsed = Qr.Parse(qr, Fixtures.SandboxCsc);
            Assert.Equal(true, parsed["hash_ok"], "hash_ok");
            Assert.Equal(2L, parsed["items"], "items");
            Assert.Equal(false, Qr.Parse(qr, "EFGH0000000000000000000000000000")["hash_ok"], "other CSC");
            Assert.True(!Qr.Parse(qr).ContainsKey("hash_ok"), "no CSC, no hash_ok");
            Assert.Throws<InvalidInputException>(() => Qr.Parse("https://example.com/"), "not a QR");
        }

        [Test]
        public static void ValidateReportsEveryFindingAndChecksNow()
        {
            var bad = Fixtures.Case("invalid_every_finding");
            Report report = Invoice.Validate(Json.Serialize(bad["request"]), null, Fixtures.Now);
            Assert.True(!report.Ok, "not ok");
            Assert.Equal(Fixtures.List(Fixtures.Obj(bad, "expected"), "errors").Count, report.Errors.Count, "every finding");
            var e = Assert.Throws<InvalidInputException>(() => Invoice.Validate(SpecRequest, null, "yesterday"), "bad now");
            Assert.Equal("now", e.Path, "now path");
            e = Assert.Throws<InvalidInputException>(() => Invoice.Validate(SpecRequest, "{\"nope\":1}", Fixtures.Now), "bad profile");
            Assert.True(e.Path.StartsWith("profile", StringComparison.Ordinal), "profile path " + e.Path);
            // now null reads the host's clock (Paraguay time) and still validates.
            Assert.True(Regex.IsMatch(Library.ParaguayNow(), @"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$"), "ParaguayNow");
            Invoice.Validate(SpecRequest);
            // Wrong JSON types inside the request are findings with the field's path; bad JSON is MALFORMED_JSON.
            var wrong = Json.ParseObject(SpecRequest);
            wrong["items"] = "x";
            report = Invoice.Validate(Json.Serialize(wrong), null, Fixtures.Now);
            Assert.True(!report.Ok && report.Errors[0].Path == "items", "items path");
            Assert.Equal("MALFORMED_JSON", Assert.Throws<InvalidInputException>(() => Invoice.Totals("{not json"), "bad JSON").Code, "code");
        }

        [Test]
        public static void UnicodeCrossesAsUtf8BothWays()
        {
            // Non-ASCII text goes in as UTF-8 and comes back decoded: the description "consultoría" is in the XML.
            var req = Json.ParseObject(SpecRequest);
            ((IDictionary<string, object>)((IList<object>)req["items"])[0])["descripcion"] = "Ñandutí – 🧾 servicio";
            string xml = Invoice.PreviewXml(Json.Serialize(req), 1, 1, null, Fixtures.Now);
            Assert.True(xml.Contains("Ñandutí – 🧾 servicio"), "round trip of non-ASCII text");
            // A lone surrogate cannot be UTF-8: refused before the call, naming the parameter.
            var e = Assert.Throws<ArgumentException>(() => Cdc.Parse("0144\udc80"), "lone surrogate");
            Assert.Equal("cdc", e.ParamName, "param");
        }

        [Test]
        public static void ABadP12NeverEchoesThePassword()
        {
            const string password = "s3cr3t-Pässwörd";
            byte[] p12 = File.ReadAllBytes(Fixtures.PathOf("tests", "fixtures", "certs", "sandbox.p12"));
            foreach (byte[] blob in new[] { new byte[0], Encoding.ASCII.GetBytes("not a pkcs12 file"), p12.Take(200).ToArray() })
            {
                var e = Assert.Throws<SignException>(() => Signer.FromP12(blob, password), "bad p12");
                Assert.Equal("P12_INVALID", e.Code, "code");
                Assert.Equal(Status.SignError, e.Status, "status");
                foreach (string text in new[] { e.ToString(), e.Message, e.Path, string.Join(",", e.Findings) })
                {
                    Assert.True(!text.Contains(password), "password in " + text);
                }
            }
            var w = Assert.Throws<SignException>(() => Signer.FromP12(p12, password), "wrong password");
            Assert.Equal("P12_WRONG_PASSWORD", w.Code, "code");
            Assert.True(!w.ToString().Contains(password), "no password");
            byte[] weak = File.ReadAllBytes(Fixtures.PathOf("tests", "fixtures", "certs", "rsa1024.p12"));
            var k = Assert.Throws<SignException>(() => Signer.FromP12(weak, "kuatia-test"), "rsa1024");
            Assert.True(k.Code.StartsWith("KEY_", StringComparison.Ordinal), "KEY_ code " + k.Code);
        }

        [Test]
        public static void SignersFromP12AndPemSignLikeTheSandbox()
        {
            var ctx = Fixtures.Obj(Spec, "context");
            byte[] p12 = File.ReadAllBytes(Fixtures.PathOf("tests", "fixtures", "certs", "sandbox.p12"));
            string key = Fixtures.Text("tests", "fixtures", "certs", "sandbox.key.pem");
            string cert = Fixtures.Text("tests", "fixtures", "certs", "sandbox.cert.pem");
            using (var a = Signer.FromP12(p12, "kuatia-test"))
            using (var b = Signer.FromPem(key, cert))
            {
                foreach (var s in new[] { a, b })
                {
                    string xml = Invoice.Issue(SpecRequest, s, (uint)Fixtures.Long(ctx, "numero"),
                        (uint)Fixtures.Long(ctx, "codigo_seguridad"), null, Fixtures.Now).Xml;
                    // RSA PKCS#1 v1.5 is deterministic: the same key gives the byte-identical document Rust recorded.
                    Assert.Equal(Fixtures.Str(Fixtures.Obj(Spec, "expected"), "xml_sha256"), Fixtures.Sha256(xml), "sha256");
                }
            }
        }

        [Test]
        public static void SignVerifyAndTamper()
        {
            string preview = Invoice.PreviewXml(SpecRequest, 1, 123456789, null, Fixtures.Now);
            string signed;
            using (var s = Signer.Sandbox())
            {
                signed = s.Sign(preview, GoldenCdc);
                Assert.Equal(signed, XmlSignature.Sign(preview, GoldenCdc, s), "same signature");
                Assert.Throws<InvalidInputException>(() => s.Sign(preview, "no-such-id"), "unknown id");
            }
            Verification ok = XmlSignature.Verify(signed);
            Assert.True(ok.Valid && (bool)ok.Report["digest_ok"] && (bool)ok.Report["signature_ok"], "valid");
            var idx = signed.IndexOf("<dCodSeg>", StringComparison.Ordinal) + "<dCodSeg>".Length;
            Verification bad = XmlSignature.Verify(signed.Insert(idx, "9"));
            Assert.True(!bad.Valid && (bool)bad.Report["digest_ok"] == false, "tampered");
        }

        [Test]
        public static void KudePdf()
        {
            var ctx = Fixtures.Obj(Spec, "context");
            string xml;
            using (var s = Signer.Sandbox())
            {
                xml = Invoice.Issue(SpecRequest, s, 1, (uint)Fixtures.Long(ctx, "codigo_seguridad"), null, Fixtures.Now).Xml;
            }
            foreach (KudeFormat f in new[] { KudeFormat.A4, KudeFormat.Ticket })
            {
                byte[] pdf = Kude.Pdf(xml, f, f == KudeFormat.Ticket);
                string text = Encoding.ASCII.GetString(pdf);
                Assert.True(text.StartsWith("%PDF-", StringComparison.Ordinal) && text.TrimEnd().EndsWith("%%EOF", StringComparison.Ordinal)
                            && pdf.Length > 1000, "a PDF (" + f + ")");
            }
            Assert.True(Kude.Pdf(xml).SequenceEqual(Kude.Pdf(xml, KudeFormat.A4)), "A4 is the default");
            var e = Assert.Throws<InvalidInputException>(() => Kude.Pdf(Invoice.PreviewXml(SpecRequest, 1, 1, null, Fixtures.Now)), "unsigned");
            Assert.True(e.Path.Contains("dCarQR"), "path " + e.Path);
            Assert.Throws<InvalidInputException>(() => Kude.Pdf("<not xml"), "not XML");
            Assert.Throws<InvalidArgumentException>(() => Kude.Pdf(xml, (KudeFormat)7), "unknown format");
        }

        [Test]
        public static void SignerLifeCycle()
        {
            var s = Signer.Sandbox();
            Assert.True(!s.IsDisposed, "open");
            s.Dispose();
            s.Dispose(); // idempotent
            Assert.True(s.IsDisposed, "disposed");
            Assert.Throws<ObjectDisposedException>(() => Invoice.Issue(SpecRequest, s, 1, 1, null, Fixtures.Now), "use after dispose");
            Assert.Throws<ArgumentNullException>(() => Invoice.Issue(SpecRequest, null, 1, 1, null, Fixtures.Now), "null signer");
        }

        [Test]
        public static void DisposeWhileInUseWaitsForTheCall()
        {
            // Threads issue with one signer while it is disposed: each call either completes with the recorded
            // document or is refused with ObjectDisposedException, never a freed key (the SafeHandle counts users).
            var ctx = Fixtures.Obj(Spec, "context");
            string want = Fixtures.Str(Fixtures.Obj(Spec, "expected"), "xml_sha256");
            string request = SpecRequest;
            int done = 0, refused = 0, wrong = 0;
            var s = Signer.Sandbox();
            var started = new ManualResetEvent(false);
            var disposed = new ManualResetEvent(false);
            var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
            {
                // 20 calls racing the Dispose, then one surely after it.
                for (int i = 0; i < 21; i++)
                {
                    if (i == 20)
                    {
                        disposed.WaitOne();
                    }
                    try
                    {
                        string h = Fixtures.Sha256(Invoice.Issue(request, s, (uint)Fixtures.Long(ctx, "numero"),
                            (uint)Fixtures.Long(ctx, "codigo_seguridad"), null, Fixtures.Now).Xml);
                        Interlocked.Increment(ref done);
                        if (h != want)
                        {
                            Interlocked.Increment(ref wrong);
                        }
                    }
                    catch (ObjectDisposedException)
                    {
                        Interlocked.Increment(ref refused);
                    }
                    started.Set();
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            Assert.True(started.WaitOne(TimeSpan.FromMinutes(2)), "a call completed");
            s.Dispose();
            disposed.Set();
            threads.ForEach(t => t.Join());
            Assert.Equal(0, wrong, "documents signed with another key");
            Assert.Equal(84, done + refused, "every call answered");
            Assert.True(done >= 1 && refused >= 4, "calls before and after the Dispose (" + done + "/" + refused + ")");
            Assert.True(s.IsDisposed, "disposed");
        }

        [Test]
        public static void OneSignerManyThreads()
        {
            var ctx = Fixtures.Obj(Spec, "context");
            string want = Fixtures.Str(Fixtures.Obj(Spec, "expected"), "xml_sha256");
            var results = new List<string>();
            string request = SpecRequest;
            using (var s = Signer.Sandbox())
            {
                var threads = Enumerable.Range(0, 4).Select(_ => new Thread(() =>
                {
                    for (int i = 0; i < 3; i++)
                    {
                        string h = Fixtures.Sha256(Invoice.Issue(request, s, (uint)Fixtures.Long(ctx, "numero"),
                            (uint)Fixtures.Long(ctx, "codigo_seguridad"), null, Fixtures.Now).Xml);
                        lock (results)
                        {
                            results.Add(h);
                        }
                    }
                })).ToList();
                threads.ForEach(t => t.Start());
                threads.ForEach(t => t.Join());
            }
            Assert.Equal(12, results.Count(r => r == want), "12 identical documents");
        }

        [Test]
        public static void RandomSecurityCodeChangesTheCdc()
        {
            using (var s = Signer.Sandbox())
            {
                var cdcs = Enumerable.Range(0, 4).Select(_ => Invoice.Issue(SpecRequest, s, 1, null, null, Fixtures.Now).Cdc);
                Assert.True(cdcs.Distinct().Count() > 1, "random codes");
            }
        }

        [Test]
        public static void SifenRequestParseAndDescribe()
        {
            var req = Sifen.Request("consulta", GoldenCdc, 7);
            Assert.Equal("consulta", req["service"], "service");
            Assert.True(((string)req["xml"]).Contains("<dCDC>" + GoldenCdc + "</dCDC>"), "dCDC");
            Assert.True(((string)req["url"]).StartsWith("https://sifen-test.", StringComparison.Ordinal), "test url");
            Assert.True(((string)Sifen.Request("consulta", GoldenCdc, 7, true)["url"]).StartsWith("https://sifen.set", StringComparison.Ordinal), "production url");
            Assert.Equal("SIFEN_LOT_EMPTY", Assert.Throws<InvalidInputException>(() => Sifen.Request("recibe-lote", "[]", 1), "empty lot").Code, "code");
            byte[] answer = File.ReadAllBytes(Fixtures.PathOf("core", "tests", "sifen_samples", "consulta_0422.xml"));
            var parsed = Sifen.ParseResponse(answer);
            Assert.Equal("consulta", parsed["service"], "parsed service");
            Assert.True(Json.Serialize(parsed["result"]).Contains("0422") && parsed.ContainsKey("action"), "result");
            Assert.Equal("SIFEN_UNEXPECTED_RESPONSE",
                Assert.Throws<InvalidInputException>(() => Sifen.ParseResponse(Encoding.UTF8.GetBytes("<html></html>")), "html").Code, "code");
            Assert.Equal("0160", Sifen.Describe("0160")["code"], "described");
            Assert.True(Sifen.Describe("9999") == null, "undocumented");
            Assert.True(((string)Sifen.Describe("0160")["meaning"]).Contains("XML mal formado"), "Spanish by default");
            Assert.True(((string)Sifen.Describe("0160", "en")["meaning"]).Contains("malformed"), "English on request");
        }

        [Test]
        public static void SifenEventsSignedAndSentInAnEventoRequest()
        {
            using (var signer = Signer.Sandbox())
            {
                var cancel = Sifen.EventSign("{\"tipo\":\"cancelacion\",\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\""
                    + GoldenCdc + "\",\"motivo\":\"Error en el precio\"}", "44444401-7", signer);
                Assert.Equal(1L, cancel["id"], "id");
                Assert.Equal("rGeVeCan", cancel["kind"], "kind");
                Assert.Equal(GoldenCdc, cancel["cdc"], "cdc");
                Assert.True(((string)cancel["xml"]).StartsWith("<rGesEve><rEve Id=\"1\">", StringComparison.Ordinal), "xml");
                var conf = Sifen.EventSign("{\"tipo\":\"conformidad\",\"id\":2,\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\""
                    + ForeignCdc + "\"}", "44444401-7", signer);
                Assert.Equal("rGeVeConf", conf["kind"], "conformidad");
                var req = Sifen.EventRequest(new[] { cancel, conf }, 9);
                Assert.Equal("evento", req["service"], "service");
                string xml = (string)req["xml"];
                Assert.True(xml.Contains("<dId>9</dId><dEvReg><gGroupGesEve"), "dId");
                Assert.Equal(2, Regex.Matches(xml, "<rGesEve>").Count, "two events");
                Assert.Equal("1", XmlSignature.Verify(xml).Report["reference_id"], "the first event verifies");
                var e = Assert.Throws<InvalidInputException>(() => Sifen.EventSign(
                    "{\"tipo\":\"cancelacion\",\"id\":1,\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + GoldenCdc
                    + "\",\"motivo\":\"mal\"}", "44444401-7", signer), "short motivo");
                Assert.Equal("SIFEN_EVENT_INVALID", e.Code, "code");
                Assert.Equal("motivo", e.Path, "path");
                e = Assert.Throws<InvalidInputException>(() => Sifen.EventSign(
                    "{\"tipo\":\"conformidad\",\"id\":2,\"fecha_firma\":\"2025-03-11T09:00:00\",\"cdc\":\"" + GoldenCdc
                    + "\"}", "44444401-7", signer), "own document");
                Assert.Equal("SIFEN_EVENT_SIGNER", e.Code, "code");
            }
        }

        [Test]
        public static void ManyFailedCallsFreeTheirErrors()
        {
            // Every failed call hands out a kuatia_error and every result a kuatia_bytes; the SafeHandles free them.
            // 20000 of each must leave the process's resident memory flat: freed, it grows by 0.4-2.5 MB (Mono's
            // heaps); leaking the errors and buffers, by 23 MB. 8 MB sits between.
            var bad = Json.Serialize(Fixtures.Case("invalid_every_finding")["request"]);
            for (int i = 0; i < 2000; i++)
            {
                try
                {
                    Invoice.Totals("{not json");
                }
                catch (InvalidInputException)
                {
                }
                Invoice.Validate(bad, null, Fixtures.Now);
            }
            long before = RssKb();
            for (int i = 0; i < 20000; i++)
            {
                try
                {
                    Invoice.Totals("{not json");
                }
                catch (InvalidInputException)
                {
                }
                Invoice.Validate(bad, null, Fixtures.Now);
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            long grown = RssKb() - before;
            Console.WriteLine("     resident memory after 20000 failed calls: " + (grown >= 0 ? "+" : "") + grown + " KiB");
            Assert.True(grown < 8 * 1024, "resident memory grew by " + grown + " KiB over 20000 failed calls");
        }

        [Test]
        public static void DisposedSignersAndServicesAreFreed()
        {
            // Each Signer and Service owns a native handle. A first round warms the heaps up (JIT, Mono's and the
            // C allocator's arenas grow by ~10 MB); a second round of as many, disposed or left to the finalizer,
            // must leave the resident memory flat: it grows by < 0.1 MB; leaking the services, by 2.9 MB; the
            // signers, by 12.7 MB.
            long grown = 0;
            for (int round = 0; round < 2; round++)
            {
                long before = RssKb();
                for (int i = 0; i < 1500; i++)
                {
                    using (Signer.Sandbox())
                    using (new Service())
                    {
                    }
                    Signer.Sandbox();
                    new Service();
                }
                GC.Collect();
                GC.WaitForPendingFinalizers();
                grown = RssKb() - before;
            }
            Console.WriteLine("     resident memory after 6000 more signers and services: " + (grown >= 0 ? "+" : "") + grown + " KiB");
            Assert.True(grown < 1536, "resident memory grew by " + grown + " KiB over 6000 signers and services");
        }

        private static long RssKb()
        {
            foreach (string line in File.ReadAllLines("/proc/self/status"))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                {
                    return long.Parse(Regex.Match(line, @"\d+").Value);
                }
            }
            throw new InvalidOperationException("no VmRSS in /proc/self/status");
        }
    }
}
