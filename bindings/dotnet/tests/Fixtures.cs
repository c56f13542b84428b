using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;

namespace Kuatia.Tests
{
    /// <summary>The shared conformance fixtures of tests/fixtures, as every binding's suite loads them.</summary>
    internal static class Fixtures
    {
        internal static string Root;
        internal const string SandboxCsc = "ABCD0000000000000000000000000000";
        internal const string Now = "2025-03-10T10:11:00";

        internal static string PathOf(params string[] parts)
        {
            return Path.Combine(new[] { Root }.Concat(parts).ToArray());
        }

        internal static string Text(params string[] parts)
        {
            return File.ReadAllText(PathOf(parts), Encoding.UTF8);
        }

        /// <summary>Every case of tests/fixtures/cases, with its file stem as <c>name</c>.</summary>
        internal static List<IDictionary<string, object>> Cases()
        {
            var list = new List<IDictionary<string, object>>();
            foreach (string f in Directory.GetFiles(PathOf("tests", "fixtures", "cases"), "*.json")
                         .OrderBy(f => f, StringComparer.Ordinal))
            {
                var c = Json.ParseObject(File.ReadAllText(f, Encoding.UTF8));
                c["name"] = Path.GetFileNameWithoutExtension(f);
                list.Add(c);
            }
            return list;
        }

        internal static IDictionary<string, object> Case(string name)
        {
            return Cases().First(c => (string)c["name"] == name);
        }

        internal static IDictionary<string, object> Obj(object o, string key)
        {
            return (IDictionary<string, object>)((IDictionary<string, object>)o)[key];
        }

        internal static IList<object> List(object o, string key)
        {
            return (IList<object>)((IDictionary<string, object>)o)[key];
        }

        internal static string Str(object o, string key)
        {
            return (string)((IDictionary<string, object>)o)[key];
        }

        internal static long Long(object o, string key)
        {
            return (long)((IDictionary<string, object>)o)[key];
        }

        internal static string Sha256(string s)
        {
            using (var h = SHA256.Create())
            {
                return string.Concat(h.ComputeHash(Encoding.UTF8.GetBytes(s)).Select(b => b.ToString("x2")));
            }
        }

        internal static Dictionary<string, string> SandboxHeaders(string key)
        {
            return new Dictionary<string, string> { { "Authorization", "Bearer " + key }, { "X-Environment", "sandbox" } };
        }
    }
}
