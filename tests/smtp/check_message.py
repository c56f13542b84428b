"""Reads a received message with Python's own MIME parser (`email`, policy `default`: RFC 2047 words decoded) and
prints what the e-mail tests check as JSON; writes each attachment under OUT_DIR by its file name.

    python check_message.py MESSAGE.eml OUT_DIR
"""

import email
import email.policy
import json
import os
import sys

with open(sys.argv[1], "rb") as f:
    raw = f.read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
attachments = []
text = None
for part in msg.walk():
    if part.is_multipart():
        continue
    name = part.get_filename()
    if name:
        content = part.get_payload(decode=True)
        with open(os.path.join(out, name), "wb") as g:
            g.write(content)
        attachments.append({"filename": name, "content_type": part.get_content_type(), "size": len(content)})
    elif part.get_content_type() == "text/plain":
        text = part.get_content()
print(json.dumps({
    "content_type": msg.get_content_type(),
    "subject": str(msg["Subject"]),
    "raw_subject_ascii": all(b < 128 for b in raw.split(b"\r\n\r\n", 1)[0]),
    "from": str(msg["From"]),
    "to": str(msg["To"]),
    "message_id": str(msg["Message-ID"]),
    "text": text,
    "attachments": attachments,
    "defects": [str(d) for d in msg.defects],
}, ensure_ascii=False))
