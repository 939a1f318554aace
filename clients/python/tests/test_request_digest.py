"""The request digest against errand's golden vectors (contracts/v1/vectors/request-digest-v1.json):
normalize each input, compare with errand's normalized form, its canonical text and its digest."""

import json
import os
import random
import shutil
import subprocess
import unittest

from errand_client.errors import LocalNormalizationError
from errand_client.normalize_task import normalize_task, normalize_url
from errand_client.request_digest import digest_of_normalized, request_digest

from .paths import CONTRACT_VECTORS
from errand_client.canonical_json import canonical_json

FILE = json.loads((CONTRACT_VECTORS / "request-digest-v1.json").read_text(encoding="utf-8"))
KEY = bytes.fromhex(FILE["keyHex"])


class GoldenVectors(unittest.TestCase):
    def test_the_file_states_errands_constants(self) -> None:
        self.assertEqual(FILE["domain"], "errand/operation-request/v1")
        self.assertEqual(FILE["separator"], "\u0000")
        self.assertEqual(len(FILE["vectors"]), 6)

    def test_each_vector_normalizes_canonicalizes_and_digests_as_errand_does(self) -> None:
        for vector in FILE["vectors"]:
            with self.subTest(vector=vector["name"]):
                normalized = normalize_task(vector["input"])
                self.assertEqual(normalized, vector["normalized"])
                self.assertEqual(canonical_json(normalized), vector["canonical"])
                self.assertEqual(digest_of_normalized(KEY, vector["normalized"]), vector["requestDigest"])
                self.assertEqual(request_digest(KEY, vector["input"]), vector["requestDigest"])

    def test_two_spellings_of_one_task_share_a_digest(self) -> None:
        by_name = {v["name"]: v for v in FILE["vectors"]}
        self.assertEqual(request_digest(KEY, by_name["untidy-spelling"]["input"]), request_digest(KEY, by_name["tidy-spelling"]["input"]))

    def test_a_normalized_task_is_its_own_normalization(self) -> None:
        for vector in FILE["vectors"]:
            with self.subTest(vector=vector["name"]):
                self.assertEqual(normalize_task(vector["normalized"]), vector["normalized"])

    def test_short_keys_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            request_digest(KEY[:31], FILE["vectors"][0]["input"])


class UrlsTheClientDoesNotGuess(unittest.TestCase):
    def test_common_spellings_normalize_like_whatwg(self) -> None:
        cases = {
            "HTTPS://Shop.Example.COM:443/a/./b/../catalog?page=2": "https://shop.example.com/a/catalog?page=2",
            "http://127.0.0.1:8080": "http://127.0.0.1:8080/",
            "http://example.com:80/x/..": "http://example.com/",
            "https://example.com/a/%2E%2e/b?q=1#frag": "https://example.com/b?q=1#frag",
            "https://bücher.example/": "https://xn--bcher-kva.example/",
        }
        for raw, href in cases.items():
            with self.subTest(raw=raw):
                self.assertEqual(normalize_url(raw, "/target/url"), href)

    def test_rules_it_does_not_reproduce_are_refused_naming_the_field(self) -> None:
        for raw in ("https://user@example.com/", "https://example.com/a b", "https://[::1]/", "https://0x7f.1/", "https://example.com/é", "https://example.com/?q='x'", "https://straße.example/", "https:\\\\example.com"):
            with self.subTest(raw=raw):
                with self.assertRaises(LocalNormalizationError) as caught:
                    normalize_url(raw, "/steps/0/url")
                self.assertEqual(caught.exception.path, "/steps/0/url")

    def test_other_schemes_are_refused(self) -> None:
        with self.assertRaises(LocalNormalizationError):
            normalize_url("javascript:alert(1)", "/target/url")


class AgreementWithNode(unittest.TestCase):
    """Node's WHATWG URL (what errand uses) against this module, on 1,200 generated spellings: every
    one the client accepts must normalize to Node's href; the rest must be refused, never guessed."""

    def test_every_url_the_client_accepts_normalizes_to_nodes_href(self) -> None:
        node = os.environ.get("ERRAND_TEST_NODE") or shutil.which("node")
        if not node:
            self.skipTest("no node to compare with")
        rng = random.Random(7)
        hosts = ["Example.COM", "a.b.c", "xn--bcher-kva.example", "bücher.example", "127.0.0.1", "10.0.0.255", "1.2.3.4.", "EXAMPLE.com.", "a_b.example", "-a.example", "münchen.de", "faß.de", "ｅｘａｍｐｌｅ.com", "example.com..", "1.2.3", "0x7f.0.0.1", "256.1.1.1", "例え.テスト", "123.example"]
        ports = ["", ":80", ":443", ":8080", ":0080", ":", ":65535", ":65536", ":abc"]
        paths = ["", "/", "/a/./b/../c", "/a/%2e%2E/b", "/%7e/x", "/a//b", "/.", "/..", "/a/..", "/~user/;p=1", "/a:b@c", "/a%20b", "/%zz", "/a/.%2e/b", "/%2e", "/./", "/a b", "/é"]
        queries = ["", "?", "?a=1&b=2", "?q=a:b/c?d", "?x=%41", "?'", "?a~b", "?a b"]
        fragments = ["", "#", "#x", "#a/b?c", "#x'y", "#a#b"]
        urls = [f"{scheme}://{rng.choice(hosts)}{rng.choice(ports)}{rng.choice(paths)}{rng.choice(queries)}{rng.choice(fragments)}" for scheme in ("http", "HTTPS", "https") for _ in range(400)]
        script = "const l=JSON.parse(require('fs').readFileSync(0,'utf8'));process.stdout.write(JSON.stringify(l.map(u=>{try{return new URL(u).href}catch{return null}})))"
        hrefs = json.loads(subprocess.run([node, "-e", script], input=json.dumps(urls), capture_output=True, text=True, check=True, timeout=60).stdout)
        accepted = 0
        for url, href in zip(urls, hrefs):
            try:
                normalized = normalize_url(url, "/target/url")
            except LocalNormalizationError:
                continue
            accepted += 1
            self.assertEqual(normalized, href, url)
        self.assertGreater(accepted, 300)


if __name__ == "__main__":
    unittest.main()
