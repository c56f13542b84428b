// Replays every conformance case (tests/fixtures/cases) through the C# binding; the results must equal what Rust
// records, as in the Python, Go, Java and PHP suites: each finding's code, path, rule, params and message in Spanish
// and in English. Every rule's sample of tests/fixtures/messages.json renders through Library.Localize.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace Kuatia.Tests
{
    internal static class ConformanceTests
    {
        [Test]
        public static void TheCasesAreThere()
        {
            var cases = Fixtures.Cases();
            // A silent empty directory would make every case vanish.
            Assert.True(cases.Count(c => (bool)Fixtures.Obj(c, "expected")["ok"]) >= 10, ">= 10 valid cases");
            Assert.True(cases.Count(c => !(bool)Fixtures.Obj(c, "expected")["ok"]) >= 2, ">= 2 invalid cases");
        }

        [Cases]
        public static IEnumerable<KeyValuePair<string, Action>> EveryCase()
        {
            foreach (var c in Fixtures.Cases())
            {
                var cc = c;
                yield return new KeyValuePair<string, Action>((string)c["name"], () => Replay(cc));
            }
        }

        private static string Pairs(IEnumerable<Finding> findings)
        {
            return string.Join(" ", findings.Select(f => f.Code + "@" + f.Path));
        }

        /// <summary>A finding as one line: code, path, rule, params (sorted by name) and message.</summary>
        private static string Line(string code, string path, string rule, IDictionary<string, object> parameters,
            string message)
        {
            var ps = (parameters ?? new Dictionary<string, object>()).OrderBy(kv => kv.Key, StringComparer.Ordinal)
                .Select(kv => kv.Key + "=" + Json.Serialize(kv.Value));
            return code + "@" + path + " " + rule + " {" + string.Join(",", ps) + "} " + message;
        }

        private static string Lines(IEnumerable<Finding> findings)
        {
            return string.Join("\n", findings.Select(f => Line(f.Code, f.Path, f.Rule, f.Params, f.Message)));
        }

        /// <summary>The findings a refused case expects, with the message in <paramref name="lang"/>.</summary>
        private static string ExpectedIn(IDictionary<string, object> exp, string lang)
        {
            return string.Join("\n", Fixtures.List(exp, "errors").Select(e => Line(Fixtures.Str(e, "code"),
                Fixtures.Str(e, "path"), Fixtures.Str(e, "rule"), Fixtures.Obj(e, "params"),
                Fixtures.Str(Fixtures.Obj(e, "message"), lang))));
        }

        [Test]
        public static void EveryRuleRendersThroughLocalize()
        {
            var samples = (IList<object>)Json.Parse(Fixtures.Text("tests", "fixtures", "messages.json"));
            Assert.True(samples.Count >= 400, ">= 400 rule samples");
            string findings = Json.Serialize(samples.Select(m => (object)new Dictionary<string, object>
            {
                { "code", "X" }, { "path", "" }, { "message", "" }, { "rule", Fixtures.Str(m, "rule") },
                { "params", Fixtures.Obj(m, "params") },
            }).ToList());
            foreach (var lang in new[] { "es", "en" })
            {
                var got = (IList<object>)Json.Parse(Library.Localize(findings, lang));
                for (int i = 0; i < samples.Count; i++)
                {
                    Assert.Equal(Fixtures.Str(samples[i], lang), Fixtures.Str(got[i], "message"),
                        Fixtures.Str(samples[i], "rule") + " (" + lang + ")");
                }
            }
        }

        private static void Replay(IDictionary<string, object> c)
        {
            var ctx = Fixtures.Obj(c, "context");
            var exp = Fixtures.Obj(c, "expected");
            string request = Json.Serialize(c["request"]);
            string now = Fixtures.Str(ctx, "now");
            uint numero = (uint)Fixtures.Long(ctx, "numero");
            uint code = (uint)Fixtures.Long(ctx, "codigo_seguridad");

            Report report = Invoice.Validate(request, null, now);
            Assert.Equal((bool)exp["ok"], report.Ok, "ok");
            using (var signer = Signer.Sandbox())
            {
                if (!report.Ok)
                {
                    string want = string.Join(" ", Fixtures.List(exp, "errors")
                        .Select(e => Fixtures.Str(e, "code") + "@" + Fixtures.Str(e, "path")));
                    Assert.Equal(want, Pairs(report.Errors), "findings");
                    Assert.True(report.Errors.All(f => f.Message.Length > 0), "every finding has a message");
                    var e2 = Assert.Throws<InvalidInputException>(
                        () => Invoice.Issue(request, signer, numero, code, null, now), "issue refuses");
                    Assert.Equal(Status.InvalidInput, e2.Status, "status");
                    Assert.Equal(want, Pairs(e2.Findings), "the exception's findings");
                    Assert.Equal(report.Errors[0].Code, e2.Code, "first code");
                    Assert.Equal(report.Errors[0].Path, e2.Path, "first path");
                    try
                    {
                        foreach (var lang in new[] { "es", "en" })
                        {
                            Library.SetLanguage(lang);
                            string expected = ExpectedIn(exp, lang);
                            Assert.Equal(expected, Lines(Invoice.Validate(request, null, now).Errors), "report " + lang);
                            var e3 = Assert.Throws<InvalidInputException>(
                                () => Invoice.Issue(request, signer, numero, code, null, now), "issue refuses");
                            Assert.Equal(expected, Lines(e3.Findings), "the exception's findings " + lang);
                        }
                    }
                    finally
                    {
                        Library.SetLanguage("es");
                    }
                    return;
                }
                Assert.Equal(0, report.Errors.Count, "no findings");

                // As the Rust replay: the recorded totals are a subset of the computed ones (null for a remisión).
                object totales = Invoice.Totals(request)["totales"];
                if (exp["totales"] == null)
                {
                    Assert.True(totales == null, "no totals");
                }
                else
                {
                    foreach (var kv in (IDictionary<string, object>)exp["totales"])
                    {
                        Assert.Equal(kv.Value, ((IDictionary<string, object>)totales)[kv.Key], kv.Key);
                    }
                }

                Issued issued = Invoice.Issue(request, signer, numero, code, null, now);
                Assert.Equal(Fixtures.Str(exp, "cdc"), issued.Cdc, "cdc");
                Assert.Equal(Fixtures.Str(exp, "numero"), issued.Numero, "numero");
                Assert.Equal(Fixtures.Str(exp, "qr"), issued.Qr, "qr");
                Assert.Equal(Fixtures.Str(exp, "xml_sha256"), Fixtures.Sha256(issued.Xml), "xml_sha256");
                Assert.Equal(now, issued.FechaEmision, "fecha_emision");

                // Downstream: the numbering key, the signature, the QR hash, the CDC's own fields.
                Assert.Equal("12558946", Invoice.NumberingKey(request, null, now)["timbrado"], "timbrado");
                Verification v = XmlSignature.Verify(issued.Xml, now);
                Assert.True(v.Valid, "signature valid");
                Assert.Equal(issued.Cdc, v.Report["reference_id"], "reference_id");
                Assert.Equal(true, Qr.Parse(issued.Qr, Fixtures.SandboxCsc)["hash_ok"], "hash_ok");
                var parts = Cdc.Parse(issued.Cdc);
                Assert.Equal(issued.Cdc, parts["cdc"], "parsed cdc");
                string seg = ((long)parts["codigo_seguridad"]).ToString("D9", CultureInfo.InvariantCulture);
                Assert.True(issued.Xml.Contains("<dCodSeg>" + seg + "</dCodSeg>"), "dCodSeg");

                // The unsigned preview carries the same CDC.
                string preview = Invoice.PreviewXml(request, numero, code, null, now);
                Assert.True(preview.Contains("Id=\"" + issued.Cdc + "\"") && !preview.Contains("<Signature"), "preview");
            }
        }

        [Test]
        public static void CodesAreTheRegistry()
        {
            object want = Json.Parse(Fixtures.Text("tests", "fixtures", "codes.json"));
            IList<object> got = Library.Codes();
            Assert.Equal(Json.Serialize(want), Json.Serialize(got), "codes() == tests/fixtures/codes.json");
            Assert.Equal("INVALID_RUC", Fixtures.Str(got[0], "code"), "first code");
        }
    }
}
