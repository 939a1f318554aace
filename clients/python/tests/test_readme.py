"""README.md stays true to the code: its Python examples compile, and the names they use exist."""

import ast
import re
import unittest
from pathlib import Path

import errand_client

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


class ReadmeExamples(unittest.TestCase):
    def test_every_python_block_compiles_and_imports_only_what_the_package_exports(self) -> None:
        blocks = re.findall(r"```python\n(.*?)```", README, re.S)
        self.assertGreaterEqual(len(blocks), 2)
        for block in blocks:
            tree = ast.parse(block)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module == "errand_client":
                    for alias in node.names:
                        self.assertIn(alias.name, errand_client.__all__)

    def test_the_methods_and_exceptions_it_names_exist(self) -> None:
        for name in re.findall(r"`(\w+)\(", README):
            if name in errand_client.__all__:
                continue
            else:
                self.assertTrue(hasattr(errand_client.ErrandClient, name), name)
        for name in ("IdentityMismatch", "OutcomeUnknown", "DigestMismatch", "OperationNotFound", "InvalidTask", "Unauthorized", "RateLimited", "ErrandError", "ArtifactMismatch", "LocalNormalizationError"):
            self.assertIn(f"`{name}`", README)
            self.assertIn(name, errand_client.__all__)

    def test_the_statuses_table_lists_every_status(self) -> None:
        for status in errand_client.STATUSES:
            self.assertIn(f"| `{status}` |", README)


if __name__ == "__main__":
    unittest.main()
