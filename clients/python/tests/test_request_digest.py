"""The request digest against errand's golden vectors (contracts/v1/vectors/request-digest-v1.json):
normalize each input, compare with errand's normalized form, its canonical text and its digest."""

import json
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


if __name__ == "__main__":
    unittest.main()
