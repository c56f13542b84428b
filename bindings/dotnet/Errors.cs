using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Runtime.InteropServices;

namespace Kuatia
{
    /// <summary>
    /// One problem: a stable <c>Code</c> of the error registry, the JSON <c>Path</c> of the field, a message in the
    /// chosen language (<see cref="Library.SetLanguage"/>), the <c>Rule</c> that found it and the rule's <c>Params</c>.
    /// </summary>
    public sealed class Finding
    {
        private static readonly IDictionary<string, object> NoParams =
            new ReadOnlyDictionary<string, object>(new Dictionary<string, object>());

        /// <summary>A finding without a rule (<c>unclassified</c>, no parameters).</summary>
        public Finding(string code, string path, string message) : this(code, path, message, "unclassified", null)
        {
        }

        /// <summary>A finding with these parts.</summary>
        public Finding(string code, string path, string message, string rule, IDictionary<string, object> parameters)
        {
            Code = code;
            Path = path;
            Message = message;
            Rule = string.IsNullOrEmpty(rule) ? "unclassified" : rule;
            Params = parameters == null ? NoParams
                : new ReadOnlyDictionary<string, object>(new Dictionary<string, object>(parameters));
        }

        /// <summary>Stable id of the rule that found the problem (<c>ruc.check_digit</c>); <c>unclassified</c> while its text is still an English sentence.</summary>
        public string Rule { get; private set; }

        /// <summary>The rule's parameters (<c>{"expected": "1", "got": "2"}</c>); empty when it has none.</summary>
        public IDictionary<string, object> Params { get; private set; }

        /// <summary>A finding from its JSON object (<c>kuatia_error_json_in</c>, a validation report).</summary>
        internal static Finding FromJson(IDictionary<string, object> f)
        {
            object p;
            f.TryGetValue("params", out p);
            return new Finding(Str(f, "code"), Str(f, "path"), Str(f, "message"), Str(f, "rule"),
                p as IDictionary<string, object>);
        }

        private static string Str(IDictionary<string, object> o, string k)
        {
            object v;
            return o.TryGetValue(k, out v) && v is string ? (string)v : "";
        }

        /// <summary>Stable code of the registry (<c>VALIDATION_ERROR.REQUIRED</c>, <c>INVALID_RUC</c>, ...).</summary>
        public string Code { get; private set; }

        /// <summary>JSON path of the field at fault (<c>items[1].iva</c>); empty when it concerns the whole input.</summary>
        public string Path { get; private set; }

        /// <summary>Human-readable message, in the chosen language.</summary>
        public string Message { get; private set; }

        /// <summary><c>CODE at path: message</c>.</summary>
        public override string ToString()
        {
            return Path.Length > 0 ? Code + " at " + Path + ": " + Message : Code + ": " + Message;
        }
    }

    /// <summary>
    /// A failed kuatia call: the C <see cref="Status"/>, the registry <see cref="Code"/>, <see cref="Path"/> and
    /// message of the first problem, and every <see cref="Findings"/> (validation reports all problems at once).
    /// One subclass per status. Messages never contain secrets such as a P12 password.
    /// </summary>
    public class KuatiaException : Exception
    {
        /// <summary>An exception with these parts (for tests and hosts that rethrow).</summary>
        public KuatiaException(Status status, string code, string path, string message, IList<Finding> findings)
            : base(message)
        {
            Status = status;
            Code = code;
            Path = path;
            Findings = new ReadOnlyCollection<Finding>(new List<Finding>(findings));
        }

        /// <summary>The C status of the failed call.</summary>
        public Status Status { get; private set; }

        /// <summary>The registry code of the first problem (<c>INVALID_RUC</c>, <c>P12_WRONG_PASSWORD</c>, ...).</summary>
        public string Code { get; private set; }

        /// <summary>The JSON path of the first problem's field (<c>items[0].iva</c>) or the argument name; may be empty.</summary>
        public string Path { get; private set; }

        /// <summary>Every problem, in the order the core reported them.</summary>
        public IList<Finding> Findings { get; private set; }

        /// <summary>Stable id of the rule that found the first problem (<c>ruc.check_digit</c>), or <c>unclassified</c>.</summary>
        public string Rule
        {
            get { return Findings.Count > 0 ? Findings[0].Rule : "unclassified"; }
        }

        /// <summary>The parameters of the first problem's rule; empty when it has none.</summary>
        public IDictionary<string, object> Params
        {
            get { return Findings.Count > 0 ? Findings[0].Params : new Finding("", "", "").Params; }
        }

        /// <summary><c>CODE at path: message</c> of the first problem.</summary>
        public override string ToString()
        {
            return GetType().Name + ": " + (Path.Length > 0 ? Code + " at " + Path + ": " + Message : Code + ": " + Message);
        }

        /// <summary>Reads a live C error (its owner frees it); a NULL error gives an exception from the status alone.</summary>
        internal static KuatiaException FromNative(Status status, ErrorHandle err)
        {
            if (err.IsInvalid)
            {
                return Make(status, status.ToString(), "", "kuatia call failed with status " + (int)status,
                    new List<Finding>());
            }
            IntPtr e = err.DangerousGetHandle();
            var findings = new List<Finding>();
            IList<object> list;
            string message;
            string rule;
            IntPtr lang = Interop.CLang(null);
            try
            {
                message = Interop.CString(Native.kuatia_error_message_in(e, lang));
                rule = Interop.CString(Native.kuatia_error_rule(e));
                list = Json.Parse(Interop.CString(Native.kuatia_error_json_in(e, lang))) as IList<object>;
            }
            catch (FormatException)
            {
                message = null;
                rule = null;
                list = null; // a bug on one side of the boundary: the first problem below still describes it
            }
            finally
            {
                Marshal.FreeHGlobal(lang);
            }
            if (list != null)
            {
                foreach (object item in list)
                {
                    var f = item as IDictionary<string, object>;
                    if (f != null)
                    {
                        findings.Add(Finding.FromJson(f));
                    }
                }
            }
            string code = Interop.CString(Native.kuatia_error_code(e));
            string path = Interop.CString(Native.kuatia_error_path(e));
            message = message ?? "";
            if (findings.Count == 0)
            {
                findings.Add(new Finding(code, path, message, rule, null));
            }
            var ex = Make(Native.kuatia_error_status(e), code, path, message, findings);
            GC.KeepAlive(err);
            return ex;
        }

        private static KuatiaException Make(Status s, string code, string path, string message, List<Finding> findings)
        {
            switch (s)
            {
                case Status.InvalidArgument: return new InvalidArgumentException(code, path, message, findings);
                case Status.InvalidUtf8: return new InvalidUtf8Exception(code, path, message, findings);
                case Status.TooLarge: return new TooLargeException(code, path, message, findings);
                case Status.InvalidInput: return new InvalidInputException(code, path, message, findings);
                case Status.SignError: return new SignException(code, path, message, findings);
                case Status.Panic: return new PanicException(code, path, message, findings);
                default: return new KuatiaException(s, code, path, message, findings);
            }
        }
    }

    /// <summary>A required argument was missing (<c>INVALID_ARGUMENT</c>).</summary>
    public sealed class InvalidArgumentException : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public InvalidArgumentException(string code, string path, string message, IList<Finding> findings)
            : base(Status.InvalidArgument, code, path, message, findings)
        {
        }
    }

    /// <summary>A text input was not valid UTF-8 (<c>INVALID_UTF8</c>).</summary>
    public sealed class InvalidUtf8Exception : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public InvalidUtf8Exception(string code, string path, string message, IList<Finding> findings)
            : base(Status.InvalidUtf8, code, path, message, findings)
        {
        }
    }

    /// <summary>An input exceeded a size limit (<c>TOO_LARGE</c>).</summary>
    public sealed class TooLargeException : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public TooLargeException(string code, string path, string message, IList<Finding> findings)
            : base(Status.TooLarge, code, path, message, findings)
        {
        }
    }

    /// <summary>The input was read but rejected; <see cref="KuatiaException.Findings"/> lists every problem.</summary>
    public sealed class InvalidInputException : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public InvalidInputException(string code, string path, string message, IList<Finding> findings)
            : base(Status.InvalidInput, code, path, message, findings)
        {
        }
    }

    /// <summary>A key, certificate or signature operation failed (<c>P12_INVALID</c>, <c>P12_WRONG_PASSWORD</c>, ...).</summary>
    public sealed class SignException : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public SignException(string code, string path, string message, IList<Finding> findings)
            : base(Status.SignError, code, path, message, findings)
        {
        }
    }

    /// <summary>A bug inside kuatia was caught at the C boundary; please report it.</summary>
    public sealed class PanicException : KuatiaException
    {
        /// <summary>An exception with these parts.</summary>
        public PanicException(string code, string path, string message, IList<Finding> findings)
            : base(Status.Panic, code, path, message, findings)
        {
        }
    }

    /// <summary>
    /// An error answer of the <c>/v1</c> API raised by the typed calls of <see cref="Service"/>
    /// (<see cref="Service.Handle(string, string, IEnumerable{KeyValuePair{string, string}}, byte[])"/> returns it as a
    /// <see cref="Response"/> instead): the HTTP status, the registry code, the message and the findings
    /// <c>details</c> (422).
    /// </summary>
    public sealed class ApiException : Exception
    {
        /// <summary>An exception with these parts.</summary>
        public ApiException(int status, string code, string message, IList<object> details)
            : base(status + " " + code + ": " + message)
        {
            Status = status;
            Code = code;
            ApiMessage = message;
            Details = details ?? new List<object>();
        }

        /// <summary>HTTP status (400, 401, 404, 409, 422, ...).</summary>
        public int Status { get; private set; }

        /// <summary>Registry code of the envelope's <c>error.code</c>.</summary>
        public string Code { get; private set; }

        /// <summary>The envelope's <c>error.message</c>.</summary>
        public string ApiMessage { get; private set; }

        /// <summary>The envelope's <c>error.details</c> (<c>[{code, path, message}]</c> for 422), parsed JSON.</summary>
        public IList<object> Details { get; private set; }
    }
}
