"""canonical_json against the RFC 8785 vectors errand's own tests read (test/fixtures/rfc8785 and
contracts/v1/vectors/rfc8785-numbers.json): Node is the authority, this checks Python agrees."""

import json
import struct
import unittest

from errand_client.canonical_json import CanonicalJsonError, canonical_json

from .paths import CONTRACT_VECTORS, RFC8785


class Rfc8785ReferenceVectors(unittest.TestCase):
    def test_every_cyberphone_file_gives_the_expected_bytes(self) -> None:
        names = sorted(p.name for p in (RFC8785 / "input").glob("*.json"))
        self.assertEqual(names, ["arrays.json", "french.json", "structures.json", "unicode.json", "values.json", "weird.json"])
        for name in names:
            with self.subTest(name=name):
                value = json.loads((RFC8785 / "input" / name).read_text(encoding="utf-8"))
                expected = (RFC8785 / "output" / name).read_bytes()
                self.assertEqual(canonical_json(value).encode("utf-8"), expected)


class NumberFormatting(unittest.TestCase):
    def test_the_shared_number_table(self) -> None:
        table = json.loads((CONTRACT_VECTORS / "rfc8785-numbers.json").read_text(encoding="utf-8"))["numbers"]
        self.assertEqual(len(table), 24)
        for case in table:
            with self.subTest(bits=case["bits"]):
                value = struct.unpack(">d", bytes.fromhex(case["bits"]))[0]
                self.assertEqual(canonical_json(value), case["canonical"])

    def test_spellings_of_one_number_give_one_text(self) -> None:
        self.assertEqual(canonical_json(json.loads("[1.0, 1E0, 10e-1, 0.1e1, -0, 0.0, -0.0]")), "[1,1,1,1,0,0,0]")

    def test_integers_are_read_as_the_double_javascript_would_parse(self) -> None:
        self.assertEqual(canonical_json(12345678901234567890), "12345678901234567000")
        self.assertEqual(canonical_json(10**21), "1e+21")

    def test_no_canonical_form_for_nan_infinity_or_overflow(self) -> None:
        for value in (float("nan"), float("inf"), -float("inf"), json.loads("1e400"), 10**400):
            with self.subTest(value=repr(value)[:20]):
                with self.assertRaises(CanonicalJsonError):
                    canonical_json(value)


class StringsAndKeys(unittest.TestCase):
    def test_only_required_characters_are_escaped(self) -> None:
        self.assertEqual(canonical_json('\b\f\n\r\t"\\'), '"\\b\\f\\n\\r\\t\\"\\\\"')
        self.assertEqual(canonical_json("\u0000\u001f\u007f"), '"\\u0000\\u001f\u007f"')
        self.assertEqual(canonical_json("/ < > & ' \u2028 \u2029 é 😂"), "\"/ < > & ' \u2028 \u2029 é 😂\"")

    def test_keys_sort_by_utf16_code_units(self) -> None:
        value = {"\ufb33": 1, "\ue000": 2, "😂": 3, "é": 4, "Z": 5, "a": 6, "10": 7, "1": 8, "": 9}
        self.assertEqual(canonical_json(value), '{"":9,"1":8,"10":7,"Z":5,"a":6,"é":4,"😂":3,"\ue000":2,"\ufb33":1}')

    def test_unicode_is_not_normalized(self) -> None:
        self.assertNotEqual(canonical_json("A\u030a"), canonical_json("\u00c5"))

    def test_unpaired_surrogates_and_non_json_values_are_refused(self) -> None:
        for value in ("\ud800", {"\udc00": 1}, {1: 2}, object(), b"bytes"):
            with self.subTest(value=repr(value)):
                with self.assertRaises(CanonicalJsonError):
                    canonical_json(value)


if __name__ == "__main__":
    unittest.main()
