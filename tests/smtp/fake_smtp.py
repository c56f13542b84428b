"""A real SMTP server on loopback for the e-mail tests (issue 36), on aiosmtpd (tests/smtp/requirements.txt).

    python fake_smtp.py SPOOL_DIR [ACTION,ACTION,...]

Prints `PORT <n>` once listening on 127.0.0.1 (a free port). Each message's end of data takes the next ACTION (then
`ok` when the list runs out):
    ok         250: accepted, written to SPOOL_DIR/<n>.eml
    t451       451 4.3.0: a temporary refusal
    p550       550 5.1.1: a permanent refusal
    hang-data  never answers the end of data (the message is not acknowledged)
    hang-quit  250 and written, then never answers the QUIT that follows
SPOOL_DIR/log.txt gets one line per end of data (`DATA <n> <Message-ID> <action>`) and per QUIT (`QUIT`).

With FAKE_SMTP_AUTH=LOGIN:PASSWORD in the environment, the server offers AUTH (PLAIN, LOGIN) without TLS (loopback
only), requires it before MAIL, accepts only that pair (535 otherwise) and logs each attempt
(`AUTH <login> <password> ok|bad`) so a test can see what the client sent.
"""

import asyncio
import email
import os
import sys
import warnings

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Handler:
    def __init__(self, spool, actions):
        self.spool = spool
        self.actions = actions
        self.count = 0

    def log(self, line):
        with open(os.path.join(self.spool, "log.txt"), "a", encoding="utf-8") as f:
            f.write(line + "\n")

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        n = self.count
        action = self.actions[n - 1] if n <= len(self.actions) else "ok"
        msg = email.message_from_bytes(envelope.original_content or envelope.content)
        self.log(f"DATA {n} {msg.get('Message-ID', '-')} {action}")
        if action == "t451":
            return "451 4.3.0 Try again later"
        if action == "p550":
            return "550 5.1.1 No such user here"
        if action == "hang-data":
            await asyncio.sleep(3600)
        with open(os.path.join(self.spool, f"{n}.eml"), "wb") as f:
            f.write(envelope.original_content or envelope.content)
        if action == "hang-quit":
            session.hang_quit = True
        return "250 2.0.0 Accepted"

    async def handle_QUIT(self, server, session, envelope):
        self.log("QUIT")
        if getattr(session, "hang_quit", False):
            await asyncio.sleep(3600)
        return "221 Bye"


async def main():
    spool = sys.argv[1]
    actions = [a for a in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if a]
    os.makedirs(spool, exist_ok=True)
    handler = Handler(spool, actions)
    options = {}
    auth = os.environ.get("FAKE_SMTP_AUTH")
    if auth:
        login, password = auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, data):
            if not isinstance(data, LoginPassword):
                return AuthResult(success=False, handled=False)
            got = (data.login.decode("utf-8", "replace"), data.password.decode("utf-8", "replace"))
            ok = got == (login, password)
            handler.log(f"AUTH {got[0]} {got[1]} {'ok' if ok else 'bad'}")
            return AuthResult(success=ok, handled=False)

        # Loopback only, on purpose: no TLS to set up in the tests.
        warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
        options = dict(authenticator=authenticator, auth_required=True, auth_require_tls=False)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: SMTP(handler, decode_data=False, enable_SMTPUTF8=True, **options), "127.0.0.1", 0
    )
    port = server.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
