import pytest

from codescore_metric.code_annotations import strip_annotations

TYPED = ("from typing import List, Tuple\n\n"
         "def pair_up(xs: List[int], *rest: int, k: int=2, **extra: str) -> Tuple[int, ...]:\n"
         "    total: int = 0\n"
         "    for x in xs:\n"
         "        total += x\n"
         "    return (total, k)\n")
UNTYPED = ("\n"
           "def pair_up(xs, *rest, k=2, **extra):\n"
           "    total = 0\n"
           "    for x in xs:\n"
           "        total += x\n"
           "    return (total, k)\n")


def test_parameter_return_and_local_annotations_and_the_typing_import_go():
    assert strip_annotations(TYPED) == UNTYPED
    assert strip_annotations(UNTYPED) == UNTYPED


def test_what_the_program_does_is_unchanged():
    namespace_typed, namespace_untyped = {}, {}
    exec(TYPED, namespace_typed)  # our own fixed program, not generated code
    exec(strip_annotations(TYPED), namespace_untyped)
    assert namespace_typed["pair_up"]([1, 2, 3], k=5) == namespace_untyped["pair_up"]([1, 2, 3], k=5) == (6, 5)


def test_annotations_that_can_matter_are_kept():
    dataclass_program = ("from dataclasses import dataclass\nfrom typing import List\n\n@dataclass\nclass Box:\n"
                         "    items: List[int] = None\n    size: int = 0\n\nLIMIT: int = 3\n")
    assert strip_annotations(dataclass_program) == dataclass_program  # fields, a module annotation, their import
    declared = "def f(xs):\n    seen: set\n    return xs\n"
    assert strip_annotations(declared) == declared  # a bare declaration makes the name local
    star = "from typing import *\n\ndef f(xs: List[int]) -> int:\n    return len(xs)\n"
    assert strip_annotations(star) == "from typing import *\n\ndef f(xs):\n    return len(xs)\n"
    still_read = "from typing import List\n\ndef f(xs: List[int]):\n    return List\n"
    assert strip_annotations(still_read) == "from typing import List\n\ndef f(xs):\n    return List\n"


@pytest.mark.parametrize("typed, untyped", [
    ("def f(x: int\n      ) -> (\n  int):\n    return x\n", "def f(x\n      ):\n    return x\n"),
    ("def f(x: (int), y: Tuple[(int)]) -> (Dict[str, int]): return x\n", "def f(x, y): return x\n"),
    ("def größe(ä: 'ß', b: int) -> str: return ä\n", "def größe(ä, b): return ä\n"),
    ("class C:\n    def m(self, x: int) -> int:\n        y: int = x\n        return y\n",
     "class C:\n    def m(self, x):\n        y = x\n        return y\n"),
    ("async def f(x: int) -> None:\n    return None\n", "async def f(x):\n    return None\n"),
])
def test_layouts_brackets_non_ascii_names_methods_and_coroutines(typed, untyped):
    assert strip_annotations(typed) == untyped


@pytest.mark.parametrize("code", ["def f(x: int -> int:\n", "", "x = 1\n", "def f(x):\n    return x\x00\n"])
def test_code_that_does_not_parse_or_has_no_annotations_comes_back_unchanged(code):
    assert strip_annotations(code) == code


def test_typed_and_untyped_signatures_encode_the_same_distance_and_tokens(tmp_path):
    from transformers import BertTokenizerFast

    from codescore_metric.encoding import EncodingSpec, SegmentEncoder

    words = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"[unused{i}]" for i in range(13)]
             + ["def", "f", "(", ")", ":", "x", "int", "-", ">", "return", "+", "1", "from", "typing", "import", "list"])
    (tmp_path / "vocab.txt").write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(str(tmp_path / "vocab.txt"), do_lower_case=True)
    distances = tuple(f"[unused{i}]" for i in range(6, 13))
    typed, untyped = "from typing import List\ndef f(x: int) -> int:\n    return x + 1\n", "def f(x):\n    return x + 1\n"
    fields = {"prediction": [typed], "reference": [untyped], "source": ["x"]}
    stripping = SegmentEncoder(tokenizer, EncodingSpec(max_length=64, separator_tokens=1, strip_annotations=True,
                                                       distance_tokens=distances)).encode(fields)[0]
    plain = SegmentEncoder(tokenizer, EncodingSpec(max_length=64, separator_tokens=1, distance_tokens=distances))
    assert stripping.input_ids == plain.encode({**fields, "prediction": [untyped]})[0].input_ids
    assert tokenizer.convert_ids_to_tokens(stripping.input_ids)[1] == "[unused6]"  # the same program: distance 0
    assert tokenizer.convert_ids_to_tokens(plain.encode(fields)[0].input_ids)[1] != "[unused6]"


def test_windows_line_ends_and_characters_other_tools_call_line_breaks():
    typed = "from typing import List\r\n\r\nMARK = '\u2028\x0c'\r\ndef f(xs: List[int]) -> int:\r\n    return len(xs)\r\n"
    assert strip_annotations(typed) == "\r\nMARK = '\u2028\x0c'\r\ndef f(xs):\r\n    return len(xs)\r\n"
