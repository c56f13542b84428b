// A small JSON reader and writer for the binding's inputs and results. .NET Framework 4.x has no System.Text.Json,
// netstandard2.0 has none without a NuGet package, and Mono's System.Json / DataContractJsonSerializer are neither in
// netstandard2.0 nor installed with mono-mcs. kuatia writes every result as JSON, so this reads it into plain .NET
// values (no dependency for users, the same code on Framework, Mono and .NET 6+):
// object -> Dictionary<string, object>, array -> List<object>, string, long (integers) or double, bool, null.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Kuatia
{
    /// <summary>Reads and writes JSON as plain .NET values (no dependency, RFC 8259).</summary>
    public static class Json
    {
        private const int MaxDepth = 256;

        /// <summary>
        /// Parses JSON text: objects become <c>Dictionary&lt;string, object&gt;</c>, arrays <c>List&lt;object&gt;</c>,
        /// integers <c>long</c> (<c>ulong</c> above <c>long.MaxValue</c>, <c>double</c> when fractional or beyond 64 bits), and strings, booleans and null
        /// themselves. Throws <see cref="FormatException"/> for anything that is not one JSON value.
        /// </summary>
        public static object Parse(string text)
        {
            if (text == null)
            {
                throw new ArgumentNullException("text");
            }
            var r = new Reader(text);
            r.SkipWs();
            object v = r.Value(0);
            r.SkipWs();
            if (r.Pos != text.Length)
            {
                throw r.Error("trailing characters");
            }
            return v;
        }

        /// <summary>Parses JSON text whose top value must be an object.</summary>
        public static IDictionary<string, object> ParseObject(string text)
        {
            var o = Parse(text) as IDictionary<string, object>;
            if (o == null)
            {
                throw new FormatException("JSON: expected an object");
            }
            return o;
        }

        /// <summary>
        /// Writes a value as compact JSON: null, strings, booleans, numbers, any <c>IDictionary</c> (keys as
        /// strings) and any other <c>IEnumerable</c> (as an array).
        /// </summary>
        public static string Serialize(object value)
        {
            var sb = new StringBuilder();
            Write(sb, value, 0);
            return sb.ToString();
        }

        private static void Write(StringBuilder sb, object v, int depth)
        {
            if (depth > MaxDepth)
            {
                throw new ArgumentException("JSON: nested deeper than " + MaxDepth);
            }
            if (v == null)
            {
                sb.Append("null");
            }
            else if (v is string)
            {
                WriteString(sb, (string)v);
            }
            else if (v is bool)
            {
                sb.Append((bool)v ? "true" : "false");
            }
            else if (v is int || v is long || v is uint || v is ulong || v is short || v is ushort || v is byte
                     || v is sbyte || v is decimal)
            {
                sb.Append(Convert.ToString(v, CultureInfo.InvariantCulture));
            }
            else if (v is double || v is float)
            {
                double d = Convert.ToDouble(v, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d))
                {
                    throw new ArgumentException("JSON has no NaN or infinity");
                }
                sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
            }
            else if (v is Enum)
            {
                sb.Append(Convert.ToInt64(v, CultureInfo.InvariantCulture).ToString(CultureInfo.InvariantCulture));
            }
            else if (v is IDictionary)
            {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in (IDictionary)v)
                {
                    if (!first)
                    {
                        sb.Append(',');
                    }
                    first = false;
                    WriteString(sb, Convert.ToString(e.Key, CultureInfo.InvariantCulture));
                    sb.Append(':');
                    Write(sb, e.Value, depth + 1);
                }
                sb.Append('}');
            }
            else if (v is IEnumerable)
            {
                sb.Append('[');
                bool first = true;
                foreach (object item in (IEnumerable)v)
                {
                    if (!first)
                    {
                        sb.Append(',');
                    }
                    first = false;
                    Write(sb, item, depth + 1);
                }
                sb.Append(']');
            }
            else
            {
                throw new ArgumentException("JSON: cannot write a " + v.GetType().FullName);
            }
        }

        private static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20)
                        {
                            sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        }
                        else
                        {
                            sb.Append(c);
                        }
                        break;
                }
            }
            sb.Append('"');
        }

        private sealed class Reader
        {
            private readonly string s;
            internal int Pos;

            internal Reader(string text)
            {
                s = text;
            }

            internal FormatException Error(string what)
            {
                return new FormatException("JSON: " + what + " at offset " + Pos);
            }

            internal void SkipWs()
            {
                while (Pos < s.Length && (s[Pos] == ' ' || s[Pos] == '\t' || s[Pos] == '\n' || s[Pos] == '\r'))
                {
                    Pos++;
                }
            }

            internal object Value(int depth)
            {
                if (depth > MaxDepth)
                {
                    throw Error("nested deeper than " + MaxDepth);
                }
                if (Pos >= s.Length)
                {
                    throw Error("unexpected end");
                }
                char c = s[Pos];
                switch (c)
                {
                    case '{': return Obj(depth);
                    case '[': return Arr(depth);
                    case '"': return Str();
                    case 't': Word("true"); return true;
                    case 'f': Word("false"); return false;
                    case 'n': Word("null"); return null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9'))
                        {
                            return Num();
                        }
                        throw Error("unexpected '" + c + "'");
                }
            }

            private void Word(string w)
            {
                if (string.CompareOrdinal(s, Pos, w, 0, w.Length) != 0)
                {
                    throw Error("unexpected token");
                }
                Pos += w.Length;
            }

            private Dictionary<string, object> Obj(int depth)
            {
                var o = new Dictionary<string, object>();
                Pos++;
                SkipWs();
                if (Pos < s.Length && s[Pos] == '}')
                {
                    Pos++;
                    return o;
                }
                while (true)
                {
                    SkipWs();
                    if (Pos >= s.Length || s[Pos] != '"')
                    {
                        throw Error("expected a member name");
                    }
                    string k = Str();
                    SkipWs();
                    if (Pos >= s.Length || s[Pos] != ':')
                    {
                        throw Error("expected ':'");
                    }
                    Pos++;
                    SkipWs();
                    o[k] = Value(depth + 1);
                    SkipWs();
                    if (Pos < s.Length && s[Pos] == ',')
                    {
                        Pos++;
                        continue;
                    }
                    if (Pos < s.Length && s[Pos] == '}')
                    {
                        Pos++;
                        return o;
                    }
                    throw Error("expected ',' or '}'");
                }
            }

            private List<object> Arr(int depth)
            {
                var a = new List<object>();
                Pos++;
                SkipWs();
                if (Pos < s.Length && s[Pos] == ']')
                {
                    Pos++;
                    return a;
                }
                while (true)
                {
                    SkipWs();
                    a.Add(Value(depth + 1));
                    SkipWs();
                    if (Pos < s.Length && s[Pos] == ',')
                    {
                        Pos++;
                        continue;
                    }
                    if (Pos < s.Length && s[Pos] == ']')
                    {
                        Pos++;
                        return a;
                    }
                    throw Error("expected ',' or ']'");
                }
            }

            private string Str()
            {
                Pos++;
                var sb = new StringBuilder();
                while (true)
                {
                    if (Pos >= s.Length)
                    {
                        throw Error("unterminated string");
                    }
                    char c = s[Pos++];
                    if (c == '"')
                    {
                        return sb.ToString();
                    }
                    if (c < 0x20)
                    {
                        throw Error("control character in a string");
                    }
                    if (c != '\\')
                    {
                        sb.Append(c);
                        continue;
                    }
                    if (Pos >= s.Length)
                    {
                        throw Error("unterminated escape");
                    }
                    char e = s[Pos++];
                    switch (e)
                    {
                        case '"': sb.Append('"'); break;
                        case '\\': sb.Append('\\'); break;
                        case '/': sb.Append('/'); break;
                        case 'b': sb.Append('\b'); break;
                        case 'f': sb.Append('\f'); break;
                        case 'n': sb.Append('\n'); break;
                        case 'r': sb.Append('\r'); break;
                        case 't': sb.Append('\t'); break;
                        case 'u':
                            int code;
                            if (Pos + 4 > s.Length || !int.TryParse(s.Substring(Pos, 4), NumberStyles.AllowHexSpecifier,
                                    CultureInfo.InvariantCulture, out code))
                            {
                                throw Error("bad \\u escape");
                            }
                            Pos += 4;
                            sb.Append((char)code);
                            break;
                        default:
                            throw Error("bad escape");
                    }
                }
            }

            private object Num()
            {
                int start = Pos;
                if (s[Pos] == '-')
                {
                    Pos++;
                }
                int digits = Pos;
                while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
                {
                    Pos++;
                }
                if (Pos == digits || (s[digits] == '0' && Pos - digits > 1))
                {
                    throw Error("bad number");
                }
                bool integral = true;
                if (Pos < s.Length && s[Pos] == '.')
                {
                    integral = false;
                    Pos++;
                    int frac = Pos;
                    while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
                    {
                        Pos++;
                    }
                    if (Pos == frac)
                    {
                        throw Error("bad number");
                    }
                }
                if (Pos < s.Length && (s[Pos] == 'e' || s[Pos] == 'E'))
                {
                    integral = false;
                    Pos++;
                    if (Pos < s.Length && (s[Pos] == '+' || s[Pos] == '-'))
                    {
                        Pos++;
                    }
                    int exp = Pos;
                    while (Pos < s.Length && s[Pos] >= '0' && s[Pos] <= '9')
                    {
                        Pos++;
                    }
                    if (Pos == exp)
                    {
                        throw Error("bad number");
                    }
                }
                string t = s.Substring(start, Pos - start);
                long l;
                if (integral && long.TryParse(t, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out l))
                {
                    return l;
                }
                ulong u;
                if (integral && ulong.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out u))
                {
                    return u;
                }
                return double.Parse(t, NumberStyles.Float, CultureInfo.InvariantCulture);
            }
        }
    }
}
