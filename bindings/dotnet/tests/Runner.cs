// A small test runner for the C# binding (NUnit from Debian is 2.6.4 and pulls 28 packages, WinForms and System.Web
// among them; this is enough): every public static method marked [Test] runs, every [Cases] method yields named
// cases; a failed assertion or an unexpected exception fails that test. Exit code 0 only when every test passed and
// at least the expected number ran (a broken discovery must not pass as success).
//   mono kuatia-tests.exe REPO_ROOT MIN_TESTS [name-filter]
using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;

namespace Kuatia.Tests
{
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class TestAttribute : Attribute
    {
    }

    /// <summary>A method returning IEnumerable&lt;KeyValuePair&lt;string, Action&gt;&gt;: one test per pair.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class CasesAttribute : Attribute
    {
    }

    internal sealed class AssertionException : Exception
    {
        internal AssertionException(string message) : base(message)
        {
        }
    }

    internal static class Assert
    {
        internal static void True(bool cond, string what)
        {
            if (!cond)
            {
                throw new AssertionException(what);
            }
        }

        internal static void Equal(object want, object got, string what)
        {
            if (!object.Equals(want, got))
            {
                throw new AssertionException(what + ": want <" + want + ">, got <" + got + ">");
            }
        }

        /// <summary>Runs <paramref name="body"/> and returns the exception of type T it must throw.</summary>
        internal static T Throws<T>(Action body, string what) where T : Exception
        {
            try
            {
                body();
            }
            catch (T e)
            {
                return e;
            }
            catch (Exception e)
            {
                throw new AssertionException(what + ": want " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
            }
            throw new AssertionException(what + ": want " + typeof(T).Name + ", nothing was thrown");
        }
    }

    internal static class Runner
    {
        private static int Main(string[] args)
        {
            if (args.Length < 2)
            {
                Console.Error.WriteLine("usage: kuatia-tests.exe REPO_ROOT MIN_TESTS [filter]");
                return 2;
            }
            Fixtures.Root = args[0];
            int min = int.Parse(args[1]);
            string filter = args.Length > 2 ? args[2] : null;
            var tests = new List<KeyValuePair<string, Action>>();
            foreach (Type t in typeof(Runner).Assembly.GetTypes().OrderBy(t => t.FullName, StringComparer.Ordinal))
            {
                foreach (MethodInfo m in t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic)
                             .OrderBy(m => m.MetadataToken))
                {
                    if (m.GetCustomAttributes(typeof(TestAttribute), false).Length > 0)
                    {
                        MethodInfo mm = m;
                        tests.Add(new KeyValuePair<string, Action>(t.Name + "." + m.Name,
                            () => mm.Invoke(null, null)));
                    }
                    else if (m.GetCustomAttributes(typeof(CasesAttribute), false).Length > 0)
                    {
                        foreach (var c in (IEnumerable<KeyValuePair<string, Action>>)m.Invoke(null, null))
                        {
                            tests.Add(new KeyValuePair<string, Action>(t.Name + "." + m.Name + "[" + c.Key + "]", c.Value));
                        }
                    }
                }
            }
            int failed = 0, ran = 0;
            foreach (var test in tests)
            {
                if (filter != null && test.Key.IndexOf(filter, StringComparison.Ordinal) < 0)
                {
                    continue;
                }
                ran++;
                try
                {
                    test.Value();
                    Console.WriteLine("ok   " + test.Key);
                }
                catch (Exception e)
                {
                    while (e is TargetInvocationException && e.InnerException != null)
                    {
                        e = e.InnerException;
                    }
                    failed++;
                    Console.WriteLine("FAIL " + test.Key + ": " + (e is AssertionException ? e.Message : e.ToString()));
                }
            }
            // Every SafeHandle not disposed by a test is freed by its finalizer: run them now, so a crash in a
            // release path shows up here rather than never.
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Console.WriteLine("C# binding: " + ran + " tests, " + failed + " failed");
            if (filter == null && ran < min)
            {
                Console.WriteLine("only " + ran + " tests ran, expected at least " + min);
                return 1;
            }
            return failed == 0 ? 0 : 1;
        }
    }
}
