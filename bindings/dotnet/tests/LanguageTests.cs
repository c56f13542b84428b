// The language of messages: Spanish by default, English after Library.SetLanguage("en"); the rule id and its
// parameters either way; a report rendered again in a language (Library.Localize).
using System;
using System.Collections.Generic;
using System.Linq;

namespace Kuatia.Tests
{
    internal static class LanguageTests
    {
        private const string Es = "El dígito verificador del RUC no corresponde: debería ser 1, no 2";
        private const string En = "wrong RUC check digit: expected 1, got 2";

        /// <summary>The error of Ruc.Check("80069563-2"): its check digit is 1 (SIFEN.md §1).</summary>
        private static KuatiaException BadRuc()
        {
            return Assert.Throws<InvalidInputException>(() => Ruc.Check("80069563-2"), "wrong DV");
        }

        [Test]
        public static void ABadCheckDigitReadsInSpanishByDefaultAndInEnglishWhenChosen()
        {
            try
            {
                Assert.Equal("es", Library.Language, "default language");
                var e = BadRuc();
                Assert.Equal("ruc.check_digit", e.Rule, "rule");
                Assert.Equal(Es, e.Message, "es message");
                Assert.Equal("1", e.Params["expected"], "expected");
                Assert.Equal("2", e.Params["got"], "got");
                Assert.Equal(Es, e.Findings[0].Message, "es finding");
                Assert.Equal("ruc.check_digit", e.Findings[0].Rule, "finding rule");
                Library.SetLanguage("en");
                e = BadRuc();
                Assert.Equal(En, e.Message, "en message");
                Assert.Equal(En, e.Findings[0].Message, "en finding");
                Assert.Equal("ruc.check_digit", e.Rule, "en rule");
            }
            finally
            {
                Library.SetLanguage("es");
            }
        }

        [Test]
        public static void RulesAreTheRegistry()
        {
            var rules = Library.Rules().Cast<IDictionary<string, object>>().ToList();
            var recorded = (IList<object>)Json.Parse(Fixtures.Text("tests", "fixtures", "rules.json"));
            var mine = new HashSet<string>(rules.Select(r => Json.Serialize(r)));
            foreach (object r in recorded)
            {
                Assert.True(mine.Contains(Json.Serialize(r)), "recorded rule " + Json.Serialize(r));
            }
            var check = rules.First(r => (string)r["rule"] == "ruc.check_digit");
            Assert.Equal("INVALID_RUC", check["code"], "code");
            Assert.Equal("expected", ((IDictionary<string, object>)((IList<object>)check["params"])[0])["name"], "param");
        }

        [Test]
        public static void TypedServiceCallsAskForTheChosenLanguage()
        {
            // A typed call asks for the chosen language unless the caller's headers do; Handle sends what it is given.
            try
            {
                using (var svc = new Service())
                {
                    var h = Fixtures.SandboxHeaders(svc.CreateAccount("A").Key);
                    Func<Dictionary<string, string>, string> missing = headers =>
                    {
                        var e = Assert.Throws<ApiException>(() => svc.GetInvoice(headers, "inv_0000000000000000"), "missing");
                        Assert.Equal(404, e.Status, "status");
                        return e.ApiMessage;
                    };
                    Assert.Equal("No existe una factura con ese id", missing(h), "es by default");
                    Library.SetLanguage("en");
                    Assert.Equal("no invoice with that id", missing(h), "en when chosen");
                    var es = new Dictionary<string, string>(h) { { "accept-language", "es-PY" } };
                    Assert.Equal("No existe una factura con ese id", missing(es), "the caller's header wins");
                    Assert.Equal("es-PY", svc.Handle("GET", "/v1/facturas/inv_0000000000000000", h).Header("Content-Language"), "raw");
                }
            }
            finally
            {
                Library.SetLanguage("es");
            }
        }

        [Test]
        public static void AValidationReportAndLocalize()
        {
            try
            {
                var request = (IDictionary<string, object>)Json.Parse(Json.Serialize(Fixtures.Case("fe_spec_example")["request"]));
                ((IDictionary<string, object>)request["receptor"])["ruc"] = "80069563-2";
                string json = Json.Serialize(request);
                Func<Finding> ruc = () => Invoice.Validate(json, null, "2025-03-10T10:11:00").Errors
                    .First(f => f.Rule == "ruc.check_digit");
                Assert.Equal(Es, ruc().Message, "es report");
                Assert.Equal("receptor.ruc", ruc().Path, "path");
                Library.SetLanguage("en");
                Assert.Equal(En, ruc().Message, "en report");
                string report = "{\"ok\":false,\"errors\":[{\"code\":\"INVALID_RUC\",\"path\":\"ruc\",\"message\":\"x\","
                    + "\"rule\":\"ruc.check_digit\",\"params\":{\"expected\":\"1\",\"got\":\"2\"}}]}";
                var es = (IDictionary<string, object>)Json.Parse(Library.Localize(report, "es-PY"));
                Assert.Equal(Es, ((IDictionary<string, object>)((IList<object>)es["errors"])[0])["message"], "localize es");
                var en = (IDictionary<string, object>)Json.Parse(Library.Localize(report));
                Assert.Equal(En, ((IDictionary<string, object>)((IList<object>)en["errors"])[0])["message"], "localize en");
                var bad = Assert.Throws<InvalidInputException>(() => Library.Localize("{\"ok\":", "es"), "bad JSON");
                Assert.Equal("MALFORMED_JSON", bad.Code, "code");
            }
            finally
            {
                Library.SetLanguage("es");
            }
        }
    }
}
