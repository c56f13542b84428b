// The binding's own JSON reader and writer (Kuatia.Json): what kuatia writes must read back exactly.
using System;
using System.Collections.Generic;

namespace Kuatia.Tests
{
    internal static class JsonTests
    {
        [Test]
        public static void RoundTripsValues()
        {
            string text = "{\"a\":[1,-2,3.5,1e3,true,false,null],\"s\":\"ñ\\\"\\\\\\n\\u00e9\\ud83e\\uddfe\",\"big\":18446744073709551615,\"o\":{}}";
            var o = Json.ParseObject(text);
            var a = (IList<object>)o["a"];
            Assert.Equal(1L, a[0], "long");
            Assert.Equal(-2L, a[1], "negative");
            Assert.Equal(3.5, a[2], "double");
            Assert.Equal(1000.0, a[3], "exponent");
            Assert.Equal(true, a[4], "true");
            Assert.True(a[6] == null, "null");
            Assert.Equal("ñ\"\\\né🧾", o["s"], "escapes and a surrogate pair");
            Assert.Equal(ulong.MaxValue, o["big"], "ulong");
            Assert.Equal("{\"a\":[1,-2,3.5,1000,true,false,null],\"s\":\"ñ\\\"\\\\\\né🧾\",\"big\":18446744073709551615,\"o\":{}}",
                Json.Serialize(o), "serialized");
        }

        [Test]
        public static void RefusesWhatIsNotJson()
        {
            foreach (string bad in new[] { "", "{", "[1,]", "{\"a\" 1}", "01", "\"\\x\"", "nul", "1 2", "\"a\nb\"",
                         new string('[', 300) + new string(']', 300) })
            {
                Assert.Throws<FormatException>(() => Json.Parse(bad), "refuses " + bad);
            }
            Assert.Throws<ArgumentException>(() => Json.Serialize(double.NaN), "NaN");
            Assert.Throws<ArgumentException>(() => Json.Serialize(new object()), "an object");
        }
    }
}
