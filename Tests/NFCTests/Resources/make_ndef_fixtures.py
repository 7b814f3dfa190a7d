#!/usr/bin/env python3
"""Writes Resources/ndef-fixtures.json: NDEF messages encoded by ndeflib (an independent implementation).

Run: python3 -m venv /tmp/ndefvenv && /tmp/ndefvenv/bin/pip install ndeflib==0.3.3
     /tmp/ndefvenv/bin/python Tests/NFCTests/Resources/make_ndef_fixtures.py
"""
import json
import os
import random

import ndef

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ndef-fixtures.json")


def describe(record):
    return {"tnf": TNF[record.type.split(":")[0]] if record.type else 0,
            "type": record.type.split(":", 1)[1].encode("ascii").hex() if ":" in record.type else "",
            "id": record.name.encode("latin-1").hex(),
            "payload": bytes(record.data).hex()}


TNF = {"urn:nfc:wkt": 1, "urn:nfc:ext": 4, "unknown": 5}


def raw(record):
    """TNF, type, id and payload as ndeflib's generic Record sees them."""
    generic = next(ndef.message_decoder(b"".join(ndef.message_encoder([record])), known_types={}))
    t = generic.type
    if t == "":
        tnf, typ = 0, b""
    elif t.startswith("urn:nfc:wkt:"):
        tnf, typ = 1, t[len("urn:nfc:wkt:"):].encode()
    elif t.startswith("urn:nfc:ext:"):
        tnf, typ = 4, t[len("urn:nfc:ext:"):].encode()
    elif t == "unknown":
        tnf, typ = 5, b""
    elif "/" in t and ":" not in t:
        tnf, typ = 2, t.encode()
    else:
        tnf, typ = 3, t.encode()
    return {"tnf": tnf, "type": typ.hex(), "id": generic.name.encode("latin-1").hex(),
            "payload": bytes(generic.data).hex()}


def case(name, records, **extra):
    data = b"".join(ndef.message_encoder(records))
    entry = {"name": name, "hex": data.hex(), "records": [raw(r) for r in records]}
    entry.update(extra)
    return entry


cases = []
for uri in ["https://example.com/o/42", "http://www.example.com/", "https://www.example.com/x", "http://a.b",
            "tel:+81-3-1234-5678", "mailto:canteen@example.com", "ftp://anonymous:anonymous@host/f",
            "ftp://ftp.example.org/", "urn:epc:id:sgtin:1.2.3", "urn:epc:raw:12", "urn:nfc:sn:1", "urn:isbn:1",
            "file:///tmp/a", "btspp://00:11", "sips:alice@example.com", "canteen:coupon/ABC", "", "https://"]:
    cases.append(case("uri " + uri, [ndef.UriRecord(uri)], uri=uri))
for text, language, encoding in [("Order 42", "en", "UTF-8"), ("", "en", "UTF-8"), ("Café crème", "fr", "UTF-8"),
                                 ("お弁当 ¥500", "ja", "UTF-8"), ("Hé 𝄞", "de-CH", "UTF-16"),
                                 ("ランチ", "ja-JP", "UTF-16"), ("x" * 300, "en", "UTF-8")]:
    cases.append(case("text " + text[:20] + " " + encoding, [ndef.TextRecord(text, language, encoding=encoding)],
                      text={"text": text, "language": language, "encoding": encoding}))
cases.append(case("every TNF in one message", [
    ndef.Record("", "", b""),
    ndef.Record("urn:nfc:wkt:X", "id1", b"\x01\x02"),
    ndef.Record("text/plain", "", b"hello"),
    ndef.Record("https://example.com/type", "", b"abs"),
    ndef.Record("urn:nfc:ext:example.com:coupon", "coupon-1", b"\x00" * 3),
    ndef.Record("unknown", "", b"??"),
]))
cases.append(case("long record, 300-byte payload", [ndef.Record("application/octet-stream", "", bytes(range(256)) + bytes(44))]))
cases.append(case("long record with an id, 1000 bytes", [ndef.Record("urn:nfc:ext:a:b", "big", b"\x5a" * 1000)]))
cases.append(case("coupon: URI then Text", [ndef.UriRecord("https://canteen.example/c/K7Q2"),
                                            ndef.TextRecord("2 € off a lunch", "en")]))

rng = random.Random(13)
for index in range(20):
    records = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(["wkt", "mime", "ext", "unknown", "abs"])
        payload = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 5, 255, 256, 600])))
        name = "".join(rng.choice("abcXYZ019") for _ in range(rng.choice([0, 0, 1, 8])))
        t = {"wkt": "urn:nfc:wkt:Sp", "mime": "image/png", "ext": "urn:nfc:ext:canteen.example:t",
             "unknown": "unknown", "abs": "https://example.com/t"}[kind]
        records.append(ndef.Record(t, name, payload))
    cases.append(case("random message %d" % index, records))


def refused(data):
    try:
        list(ndef.message_decoder(data, errors="strict"))
        return False
    except ndef.DecodeError:
        return True


invalid = []
for name, data in [
    ("truncated payload", bytes.fromhex("D1010555") + b"ab"),
    ("chunked first record", bytes.fromhex("B5000300") + b"abc" + bytes.fromhex("56000100") + b"d"),
    ("no message begin", bytes.fromhex("51010155") + b"\x00"),
    ("empty record with a payload", bytes.fromhex("D0000101") + b"x"),
    ("well-known with no type", bytes.fromhex("D1000100") + b"x"),
    ("reserved TNF 7", bytes.fromhex("D7010100") + b"x"),
    ("TNF unchanged outside a chunk", bytes.fromhex("D6000100") + b"x"),
    ("long length past the end", bytes.fromhex("C1010000FFFF55")),
    ("second record sets MB", bytes.fromhex("9101015500") + bytes.fromhex("D101015500")),
    ("message without ME", bytes.fromhex("9101015500")),
]:
    # ndeflib accepts a lone TNF 6 record; the NDEF spec (and our decoder) do not.
    invalid.append({"name": name, "hex": data.hex(), "ndeflibRefuses": refused(data)})

with open(OUT, "w") as f:
    json.dump({"generator": "ndeflib " + ndef.__version__ if hasattr(ndef, "__version__") else "ndeflib 0.3.3",
               "valid": cases, "invalid": invalid}, f, indent=1, ensure_ascii=False)
print("wrote", len(cases), "valid and", len(invalid), "invalid cases to", OUT)
