#!/usr/bin/env python3
"""A small OpenID provider for Canteen's tests, on loopback only.

What a real provider does, as far as Canteen uses it: discovery, a JWKS with an RS256 and an
ES256 key (rotation included), /authorize with a real HTML login form, /token with client
authentication (HTTP Basic or form) and a PKCE S256 check, ID tokens and JWT access tokens.
What no real provider does, for the tests of Canteen's refusals, under /test/: the next ID token
made as asked (a claim changed or removed, `alg: none`, HMAC with the public key as secret, a key
Canteen never saw, a broken signature), the next code's PKCE challenge spoiled, keys rotated,
the provider's clock moved, any token minted on demand, and counts of what was asked.

    provider.py [--port 0] [--client ID:SECRET] [--redirect-uri URI]... [--user NAME:PASSWORD:SUB[:GROUP,…]]

Prints `READY <issuer>` on stdout once it listens; stops on SIGTERM or when stdin closes (so a
test that dies takes it along). Tokens are JWS built here with the `cryptography` package, so
that any header or signature can be made, including the ones a JWT library refuses to make.
"""

import argparse
import base64
import hashlib
import hmac
import html
import json
import secrets
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_int(value: int) -> str:
    return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


class Key:
    """A signing key: RS256 (RSA 2048) or ES256 (P-256)."""

    def __init__(self, kid, alg):
        self.kid, self.alg = kid, alg
        if alg == "RS256":
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        elif alg == "ES256":
            self.private = ec.generate_private_key(ec.SECP256R1())
        else:
            raise ValueError(alg)

    def jwk(self):
        numbers = self.private.public_key().public_numbers()
        if self.alg == "RS256":
            return {"kty": "RSA", "kid": self.kid, "alg": "RS256", "use": "sig", "n": b64url_int(numbers.n),
                    "e": b64url_int(numbers.e)}
        return {"kty": "EC", "kid": self.kid, "alg": "ES256", "use": "sig", "crv": "P-256",
                "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}

    def public_pem(self):
        return self.private.public_key().public_bytes(serialization.Encoding.PEM,
                                                      serialization.PublicFormat.SubjectPublicKeyInfo)

    def sign(self, data: bytes) -> bytes:
        if self.alg == "RS256":
            return self.private.sign(data, padding.PKCS1v15(), hashes.SHA256())
        r, s = decode_dss_signature(self.private.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def jws(header, claims, key=None, mode="key", hmac_secret=b""):
    """A compact JWS. `mode`: `key` (signed with `key`), `none` (alg none, empty signature),
    `hmac` (HS256 with `hmac_secret`), `bad-signature` (signed, then one byte flipped)."""
    header = dict(header)
    if mode == "none":
        header["alg"] = "none"
    elif mode == "hmac":
        header["alg"] = "HS256"
    else:
        header.setdefault("alg", key.alg)
    signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
                     + b64url(json.dumps(claims, separators=(",", ":")).encode())).encode()
    if mode == "none":
        signature = b""
    elif mode == "hmac":
        signature = hmac.new(hmac_secret, signing_input, hashlib.sha256).digest()
    else:
        signature = key.sign(signing_input)
        if mode == "bad-signature":
            signature = bytes([signature[0] ^ 0x01]) + signature[1:]
    return signing_input.decode() + "." + b64url(signature)


class Provider:
    def __init__(self, clients, redirect_uris, users):
        self.lock = threading.Lock()
        self.issuer = None
        self.clients = clients
        self.redirect_uris = set(redirect_uris)
        self.users = users
        self.keys = [Key("rsa-1", "RS256"), Key("ec-1", "ES256")]
        self.signing_kid = "rsa-1"
        self.clock_offset = 0.0
        self.codes = {}
        self.next_id_token = None
        self.next_code = None
        self.stats = {"jwks": 0, "token": 0, "authorize": 0, "login": 0}
        self.last_authorize = None

    def now(self):
        return time.time() + self.clock_offset

    def key(self, kid):
        return next(key for key in self.keys if key.kid == kid)

    def signed(self, claims, header=None, sign=None):
        """A token of `claims`, signed as `sign` says (default: the current signing key)."""
        header = {"typ": "JWT", **(header or {})}
        sign = sign or {}
        mode = sign.get("mode", "key")
        if mode == "unknown-key":
            stranger = Key(sign.get("kid", "never-published"), "RS256")
            return jws({"kid": stranger.kid, **header}, claims, stranger)
        key = self.key(sign.get("kid", self.signing_kid))
        if "kid" not in header and not sign.get("omitKid"):
            header["kid"] = key.kid
        if mode == "hmac":
            # The classic confusion attack: HMAC keyed with the RSA key's public PEM.
            return jws(header, claims, mode="hmac", hmac_secret=key.public_pem())
        return jws(header, claims, key, mode=mode)

    def default_claims(self, user, client_id, nonce=None):
        now = int(self.now())
        claims = {"iss": self.issuer, "sub": user["sub"], "aud": client_id, "iat": now, "exp": now + 300,
                  "auth_time": now, "name": user["name"], "email": user["email"], "groups": user["groups"]}
        if nonce is not None:
            claims["nonce"] = nonce
        return claims


def apply_overrides(claims, overrides):
    for name, value in (overrides or {}).items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    return claims


LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test provider · Sign in</title>
<style>body{{font:16px system-ui,sans-serif;display:grid;place-items:center;min-height:90vh;background:#eef}}
form{{background:#fff;padding:24px;border-radius:12px;display:grid;gap:12px;min-width:260px}}
input,button{{font:inherit;padding:10px}}button{{background:#2346a0;color:#fff;border:0;border-radius:8px}}
.error{{color:#a00}}</style></head>
<body><form method="post" action="/authorize" id="login">
<h1>Example Corp sign-in</h1>{error}
<label>User name <input name="username" id="username" autocomplete="username" required></label>
<label>Password <input name="password" id="password" type="password" autocomplete="current-password" required></label>
{hidden}<button type="submit" id="sign-in">Sign in</button></form></body></html>"""

AUTHORIZE_FIELDS = ["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
                    "code_challenge_method"]


def make_handler(provider):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        # MARK: - Plumbing

        def send(self, status, body=b"", content_type="application/json", headers=None):
            if isinstance(body, (dict, list)):
                body = json.dumps(body).encode()
            elif isinstance(body, str):
                body = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def error(self, status, code, description):
            self.send(status, {"error": code, "error_description": description})

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def form(self):
            return {k: v[0] for k, v in urllib.parse.parse_qs(self.body().decode(), keep_blank_values=True).items()}

        def json_body(self):
            data = self.body()
            return json.loads(data) if data else {}

        # MARK: - Routes

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
            if url.path == "/.well-known/openid-configuration":
                base = provider.issuer
                self.send(200, {"issuer": base, "authorization_endpoint": base + "/authorize",
                                "token_endpoint": base + "/token", "jwks_uri": base + "/jwks",
                                "end_session_endpoint": base + "/logout",
                                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                                "id_token_signing_alg_values_supported": ["RS256", "ES256"],
                                "code_challenge_methods_supported": ["S256"],
                                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                                "scopes_supported": ["openid", "profile", "email"]})
            elif url.path == "/jwks":
                with provider.lock:
                    provider.stats["jwks"] += 1
                    keys = [key.jwk() for key in provider.keys]
                self.send(200, {"keys": keys})
            elif url.path == "/authorize":
                self.authorize(query)
            elif url.path == "/test/stats":
                with provider.lock:
                    self.send(200, {**provider.stats, "lastAuthorize": provider.last_authorize})
            else:
                self.send(404, {"error": "not_found"})

        def do_POST(self):
            path = urllib.parse.urlsplit(self.path).path
            if path == "/authorize":
                self.login(self.form())
            elif path == "/token":
                self.token()
            elif path.startswith("/test/"):
                self.control(path[len("/test/"):], self.json_body())
            else:
                self.send(404, {"error": "not_found"})

        # MARK: - Authorization

        def authorize(self, query, error=""):
            problem = self.check_authorize(query)
            if problem:
                self.send(400, f"<!doctype html><p>{html.escape(problem)}</p>", "text/html; charset=utf-8")
                return
            with provider.lock:
                provider.stats["authorize"] += 1
                provider.last_authorize = {name: query.get(name) for name in AUTHORIZE_FIELDS}
            hidden = "".join(f'<input type="hidden" name="{name}" value="{html.escape(query.get(name, ""))}">'
                             for name in AUTHORIZE_FIELDS)
            page = LOGIN_PAGE.format(error=f'<p class="error">{html.escape(error)}</p>' if error else "", hidden=hidden)
            self.send(200, page, "text/html; charset=utf-8")

        def check_authorize(self, query):
            if query.get("response_type") != "code":
                return "response_type must be code"
            if query.get("client_id") not in provider.clients:
                return "unknown client_id"
            if query.get("redirect_uri") not in provider.redirect_uris:
                return f"redirect_uri {query.get('redirect_uri')} is not registered"
            if "openid" not in (query.get("scope") or "").split():
                return "scope must include openid"
            if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
                return "PKCE with S256 is required"
            if not query.get("state") or not query.get("nonce"):
                return "state and nonce are required"
            return None

        def login(self, form):
            problem = self.check_authorize(form)
            if problem:
                self.send(400, f"<!doctype html><p>{html.escape(problem)}</p>", "text/html; charset=utf-8")
                return
            user = provider.users.get(form.get("username"))
            if not user or not hmac.compare_digest(user["password"], form.get("password", "")):
                self.authorize(form, error="Wrong user name or password.")
                return
            code = secrets.token_urlsafe(24)
            with provider.lock:
                provider.stats["login"] += 1
                challenge = form["code_challenge"]
                if provider.next_code:
                    challenge = provider.next_code.get("codeChallenge", challenge)
                    provider.next_code = None
                provider.codes[code] = {"client_id": form["client_id"], "redirect_uri": form["redirect_uri"],
                                        "nonce": form["nonce"], "challenge": challenge, "user": user,
                                        "expires": provider.now() + 60}
            location = form["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": form["state"]})
            self.send(302, b"", "text/plain", {"Location": location})

        # MARK: - Tokens

        def client(self, form):
            header = self.headers.get("Authorization", "")
            if header.startswith("Basic "):
                try:
                    decoded = base64.b64decode(header[6:]).decode()
                except ValueError:
                    return None
                client_id, _, secret = decoded.partition(":")
                client_id, secret = urllib.parse.unquote(client_id), urllib.parse.unquote(secret)
            else:
                client_id, secret = form.get("client_id"), form.get("client_secret")
            expected = provider.clients.get(client_id)
            if expected is None or secret is None or not hmac.compare_digest(expected, secret):
                return None
            return client_id

        def token(self):
            form = self.form()
            with provider.lock:
                provider.stats["token"] += 1
            client_id = self.client(form)
            if client_id is None:
                self.error(401, "invalid_client", "client authentication failed")
                return
            if form.get("grant_type") != "authorization_code":
                self.error(400, "unsupported_grant_type", "only authorization_code")
                return
            with provider.lock:
                grant = provider.codes.pop(form.get("code", ""), None)
            if not grant or grant["expires"] < provider.now() or grant["client_id"] != client_id:
                self.error(400, "invalid_grant", "unknown, used or expired code")
                return
            if form.get("redirect_uri") != grant["redirect_uri"]:
                self.error(400, "invalid_grant", "redirect_uri differs from the authorization request's")
                return
            verifier = form.get("code_verifier", "")
            if b64url(hashlib.sha256(verifier.encode()).digest()) != grant["challenge"]:
                self.error(400, "invalid_grant", "PKCE verification failed")
                return
            user = grant["user"]
            with provider.lock:
                wanted, provider.next_id_token = provider.next_id_token or {}, None
                claims = apply_overrides(provider.default_claims(user, client_id, grant["nonce"]), wanted.get("claims"))
                id_token = provider.signed(claims, wanted.get("header"), wanted.get("sign"))
                access_claims = provider.default_claims(user, client_id)
                access_claims.update({"scope": "openid profile email", "client_id": client_id,
                                      "jti": secrets.token_urlsafe(8)})
                access_token = provider.signed(access_claims, {"typ": "at+jwt"})
            self.send(200, {"access_token": access_token, "token_type": "Bearer", "expires_in": 300,
                            "id_token": id_token, "scope": "openid profile email"})

        # MARK: - Test controls

        def control(self, name, body):
            with provider.lock:
                if name == "next-id-token":
                    provider.next_id_token = body
                    self.send(200, {"ok": True})
                elif name == "next-code":
                    provider.next_code = body
                    self.send(200, {"ok": True})
                elif name == "rotate":
                    key = Key(body["kid"], body.get("alg", "RS256"))
                    provider.keys.append(key)
                    provider.keys = [k for k in provider.keys if k.kid not in set(body.get("retire", []))]
                    if body.get("sign", True):
                        provider.signing_kid = key.kid
                    self.send(200, {"keys": [k.kid for k in provider.keys], "signing": provider.signing_kid})
                elif name == "sign-with":
                    provider.signing_kid = body["kid"]
                    self.send(200, {"signing": provider.signing_kid})
                elif name == "clock":
                    if "now" in body:
                        provider.clock_offset = float(body["now"]) - time.time()
                    self.send(200, {"now": provider.now()})
                elif name == "mint":
                    user = provider.users[body.get("user", next(iter(provider.users)))]
                    client_id = body.get("clientId", next(iter(provider.clients)))
                    claims = provider.default_claims(user, client_id, body.get("nonce"))
                    if body.get("accessToken", True):
                        claims.update({"scope": "openid profile email", "client_id": client_id})
                    claims = apply_overrides(claims, body.get("claims"))
                    header = {"typ": "at+jwt"} if body.get("accessToken", True) else {}
                    header.update(body.get("header") or {})
                    self.send(200, {"token": provider.signed(claims, header, body.get("sign"))})
                elif name == "redirect-uri":
                    provider.redirect_uris.add(body["uri"])
                    self.send(200, {"ok": True})
                elif name == "user":
                    provider.users[body["username"]] = {
                        "password": body["password"], "sub": body["sub"], "name": body.get("name", body["username"]),
                        "email": body.get("email", f"{body['username']}@example.com"),
                        "groups": body.get("groups", [])}
                    self.send(200, {"ok": True})
                else:
                    self.send(404, {"error": "no such control"})

    return Handler


DEFAULT_USERS = ["alice:alice-pw:u-alice", "olga:olga-pw:u-olga:canteen-ops"]


def start(port=0, clients=None, redirect_uris=(), users=None):
    """A provider listening on 127.0.0.1:`port` (0: a free one) in a background thread:
    `(provider, server)`; `server.shutdown()` stops it. For tests and benchmarks in Python."""
    accounts = {}
    for item in users or DEFAULT_USERS:
        name, password, sub, *groups = item.split(":")
        accounts[name] = {"password": password, "sub": sub, "name": name.capitalize() + " Example",
                          "email": f"{name}@example.com", "groups": groups[0].split(",") if groups else []}
    provider = Provider(clients or {"canteen": "canteen-secret"}, redirect_uris, accounts)
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(provider))
    server.daemon_threads = True
    provider.issuer = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return provider, server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--client", action="append", default=[], help="ID:SECRET")
    parser.add_argument("--redirect-uri", action="append", default=[])
    parser.add_argument("--user", action="append", default=[], help="NAME:PASSWORD:SUB[:GROUP,…]")
    options = parser.parse_args()
    clients = dict(item.split(":", 1) for item in options.client) or None
    provider, server = start(options.port, clients, options.redirect_uri, options.user or None)
    print(f"READY {provider.issuer}", flush=True)
    # Ends when the test that started it closes stdin (or dies), or on SIGTERM.
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.shutdown()


if __name__ == "__main__":
    main()
