"""Held-out hand-written tasks for `benchmarks/held_out_cases.py`: twenty small invented tasks (strings, lists, dicts,
numbers, simple parsing), none from MBPP, HumanEval or the behaviour suite in `codescore_metric/behaviour.py`.

Each task has an NL description, ten tests (expressions; ``assert`` is put in front of each when they run), a
reference ``ref``, two correct rewrites that are structurally different from it (``correct_*``) and three
plausible mistakes (``wrong_*``); `held_out_cases.py` adds a syntax error. A mistake that is one edit of the
reference is written as that edit (`edit_once`, which raises if the edit does not apply). The first four tasks
are the original held-out set; the sixteen after them were added and written without scoring any of their
programs with a model.

This is a measurement set only: it is never used in training, nor for choosing a model's hyperparameters by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codescore_metric.behaviour import dedented, edit_once

_MAX_GAP = dedented("""
    def max_gap(nums):
        s = sorted(nums)
        best = 0
        for i in range(1, len(s)):
            best = max(best, s[i] - s[i - 1])
        return best
""")

_INITIALS = dedented("""
    def initials(name):
        return ''.join(word[0].upper() + '.' for word in name.split())
""")

_ROTATE_LEFT = dedented("""
    def rotate_left(items, k):
        if not items:
            return []
        k %= len(items)
        return items[k:] + items[:k]
""")

_VOWEL_WORDS = dedented("""
    def vowel_words(text):
        return sum(1 for w in text.split() if w[0].lower() in 'aeiou')
""")

_LONGEST_STREAK = dedented("""
    def longest_streak(items):
        if not items:
            return 0
        longest = current = 1
        for previous, item in zip(items, items[1:]):
            if item == previous:
                current += 1
                longest = max(longest, current)
            else:
                current = 1
        return longest
""")

_PARSE_KEY_VALUES = dedented("""
    def parse_key_values(text):
        result = {}
        for segment in text.split(';'):
            if not segment.strip():
                continue
            key, value = segment.split('=', 1)
            result[key.strip()] = value.strip()
        return result
""")

_PERCENT_CHANGE = dedented("""
    def percent_change(old, new):
        if old == 0:
            return None
        change = (new - old) / old * 100
        return round(change, 1)
""")

_MASK_CARD = dedented("""
    def mask_card(number):
        if len(number) <= 4:
            return number
        hidden = '*' * (len(number) - 4)
        return hidden + number[-4:]
""")

_GROUP_BY_LENGTH = dedented("""
    def group_by_length(words):
        groups = {}
        for word in words:
            groups.setdefault(len(word), []).append(word)
        return groups
""")

_INVERT_DICT = dedented("""
    def invert_dict(mapping):
        inverted = {}
        for key, value in mapping.items():
            if value not in inverted:
                inverted[value] = []
            inverted[value].append(key)
        for keys in inverted.values():
            keys.sort()
        return inverted
""")

_WINDOW_SUMS = dedented("""
    def window_sums(nums, k):
        last_start = len(nums) - k
        return [sum(nums[start:start + k]) for start in range(last_start + 1)]
""")

_SPLIT_BILL = dedented("""
    def split_bill(total_cents, people):
        share, remainder = divmod(total_cents, people)
        return [share + 1 if i < remainder else share for i in range(people)]
""")

_COMPRESS_RANGES = dedented("""
    def compress_ranges(nums):
        parts = []
        i = 0
        while i < len(nums):
            j = i
            while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
                j += 1
            parts.append(str(nums[i]) if i == j else f'{nums[i]}-{nums[j]}')
            i = j + 1
        return ','.join(parts)
""")

_TALLY_VOTES = dedented("""
    def tally_votes(votes):
        if not votes:
            return None
        counts = {}
        for name in votes:
            counts[name] = counts.get(name, 0) + 1
        return min(counts, key=lambda name: (-counts[name], name))
""")

_BUMP_VERSION = dedented("""
    def bump_version(version, part):
        major, minor, patch = (int(piece) for piece in version.split('.'))
        if part == 'major':
            return f'{major + 1}.0.0'
        if part == 'minor':
            return f'{major}.{minor + 1}.0'
        return f'{major}.{minor}.{patch + 1}'
""")

_HEX_TO_RGB = dedented("""
    def hex_to_rgb(color):
        digits = color.lstrip('#')
        if len(digits) == 3:
            digits = ''.join(ch * 2 for ch in digits)
        return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))
""")

_JOIN_WORDS = dedented("""
    def join_words(words):
        if not words:
            return ''
        if len(words) == 1:
            return words[0]
        return ', '.join(words[:-1]) + ' and ' + words[-1]
""")

_FINAL_BALANCE = dedented("""
    def final_balance(start, amounts):
        balance = start
        for amount in amounts:
            if balance + amount < 0:
                continue
            balance += amount
        return balance
""")

_SWAP_PAIRS = dedented("""
    def swap_pairs(items):
        result = list(items)
        for i in range(0, len(result) - 1, 2):
            result[i], result[i + 1] = result[i + 1], result[i]
        return result
""")

_COMPETITION_RANKS = dedented("""
    def competition_ranks(scores):
        ranks = []
        for score in scores:
            higher = sum(1 for other in scores if other > score)
            ranks.append(higher + 1)
        return ranks
""")


TASKS = {  # a mistake that is one edit of the reference is written as that edit
    'max_gap': dict(
        nl=('Write a function max_gap(nums) that returns the largest difference between two neighbours of the '
            'sorted list nums, or 0 when nums has fewer than two elements.'),
        tests=[
            'max_gap([3, 9, 1]) == 6', 'max_gap([]) == 0', 'max_gap([5]) == 0', 'max_gap([1, 2, 3, 4]) == 1',
            'max_gap([10, 1, 5, 20]) == 10', 'max_gap([-5, 5]) == 10', 'max_gap([7, 7, 7]) == 0',
            'max_gap([1, 100, 50, 51]) == 49', 'max_gap([0, -10, 30, 4]) == 26', 'max_gap([2, 4, 8, 16, 32]) == 16',
        ],
        ref=_MAX_GAP,
        correct_zip=dedented("""
            def max_gap(nums):
                ordered = sorted(nums)
                return max((b - a for a, b in zip(ordered, ordered[1:])), default=0)
        """),
        correct_while=dedented("""
            def max_gap(nums):
                values = sorted(nums)
                gap = 0
                i = 0
                while i + 1 < len(values):
                    if values[i + 1] - values[i] > gap:
                        gap = values[i + 1] - values[i]
                    i += 1
                return gap
        """),
        wrong_unsorted=edit_once(_MAX_GAP, 'sorted(nums)', 'nums'),
        wrong_range=edit_once(_MAX_GAP, 'range(1, len(s))', 'range(1, len(s) - 1)'),
        wrong_span=dedented("""
            def max_gap(nums):
                if len(nums) < 2:
                    return 0
                return max(nums) - min(nums)
        """),
    ),
    'initials': dict(
        nl=('Write a function initials(name) that returns the upper-case first letter of each word of name, each '
            "followed by a dot, e.g. 'ada lovelace' gives 'A.L.'."),
        tests=[
            "initials('ada lovelace') == 'A.L.'", "initials('Alan Mathison Turing') == 'A.M.T.'",
            "initials('x') == 'X.'", "initials('') == ''", "initials('grace  hopper') == 'G.H.'",
            "initials(' edsger dijkstra ') == 'E.D.'", "initials('barbara liskov') == 'B.L.'",
            "initials('k') == 'K.'", "initials('john von neumann') == 'J.V.N.'",
            "initials('Tim Berners Lee') == 'T.B.L.'",
        ],
        ref=_INITIALS,
        correct_loop=dedented("""
            def initials(name):
                out = ''
                for part in name.split():
                    out += part[0].upper() + '.'
                return out
        """),
        correct_join=dedented("""
            def initials(name):
                letters = [w[:1].upper() for w in name.split()]
                return ''.join(letter + '.' for letter in letters)
        """),
        wrong_no_upper=edit_once(_INITIALS, 'word[0].upper()', 'word[0]'),
        wrong_last_dot=dedented("""
            def initials(name):
                return '.'.join(word[0].upper() for word in name.split())
        """),
        wrong_split_space=edit_once(_INITIALS, 'name.split()', "name.split(' ')"),
    ),
    'rotate_left': dict(
        nl=('Write a function rotate_left(items, k) that returns a new list with the elements of items rotated k '
            'places to the left; k may be larger than the list, and an empty list gives an empty list.'),
        tests=[
            'rotate_left([1, 2, 3, 4], 1) == [2, 3, 4, 1]', 'rotate_left([1, 2, 3, 4], 0) == [1, 2, 3, 4]',
            'rotate_left([], 3) == []', 'rotate_left([1, 2, 3], 4) == [2, 3, 1]',
            'rotate_left([1, 2, 3], 3) == [1, 2, 3]', "rotate_left(['a', 'b'], 1) == ['b', 'a']",
            'rotate_left([5], 10) == [5]', 'rotate_left([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]',
            'rotate_left([1, 2, 3, 4, 5], 7) == [3, 4, 5, 1, 2]', 'rotate_left([9, 8, 7], 2) == [7, 9, 8]',
        ],
        ref=_ROTATE_LEFT,
        correct_deque=dedented("""
            from collections import deque

            def rotate_left(items, k):
                d = deque(items)
                d.rotate(-k)
                return list(d)
        """),
        correct_loop=dedented("""
            def rotate_left(items, k):
                result = list(items)
                for _ in range(k % len(result) if result else 0):
                    result.append(result.pop(0))
                return result
        """),
        wrong_right=edit_once(_ROTATE_LEFT, 'items[k:] + items[:k]', 'items[-k:] + items[:-k]'),
        wrong_no_mod=edit_once(_ROTATE_LEFT, '    k %= len(items)\n', ''),
        wrong_no_empty=edit_once(_ROTATE_LEFT, '    if not items:\n        return []\n', ''),
    ),
    'vowel_words': dict(
        nl=('Write a function vowel_words(text) that counts the words of text that start with a vowel, upper or '
            'lower case.'),
        tests=[
            "vowel_words('an apple a day') == 3", "vowel_words('') == 0", "vowel_words('Every Other Umbrella') == 3",
            "vowel_words('the cat sat') == 0", "vowel_words('Ice cream') == 1",
            "vowel_words('one two three four') == 1", "vowel_words('under  over') == 2",
            "vowel_words('I am here') == 2", "vowel_words('xyz Abc') == 1", "vowel_words('eagle owl ibis emu') == 4",
        ],
        ref=_VOWEL_WORDS,
        correct_loop=dedented("""
            def vowel_words(text):
                count = 0
                for word in text.split():
                    if word[0] in 'aeiouAEIOU':
                        count += 1
                return count
        """),
        correct_filter=dedented("""
            def vowel_words(text):
                return len([w for w in text.lower().split() if w.startswith(('a', 'e', 'i', 'o', 'u'))])
        """),
        wrong_case=edit_once(_VOWEL_WORDS, 'w[0].lower()', 'w[0]'),
        wrong_contains=dedented("""
            def vowel_words(text):
                return sum(1 for w in text.split() if any(c in 'aeiou' for c in w.lower()))
        """),
        wrong_last=edit_once(_VOWEL_WORDS, 'w[0]', 'w[-1]'),
    ),
    'longest_streak': dict(
        nl=('Write a function longest_streak(items) that returns the length of the longest run of equal neighbouring '
            'elements of the list items, or 0 for an empty list.'),
        tests=[
            'longest_streak([]) == 0', 'longest_streak([4]) == 1', 'longest_streak([1, 1, 2, 2, 2]) == 3',
            'longest_streak([1, 2, 1, 2, 1]) == 1', "longest_streak(['a', 'a', 'b', 'a', 'a', 'a']) == 3",
            'longest_streak([7, 7, 7, 7]) == 4', 'longest_streak([1, 3, 3, 1, 3, 3, 3]) == 3',
            'longest_streak([0, 5, 5, 0, 0, 0, 0]) == 4', 'longest_streak([2, 1, 1, 2, 3, 2]) == 2',
            "longest_streak(list('mississippi')) == 2",
        ],
        ref=_LONGEST_STREAK,
        correct_groupby=dedented("""
            from itertools import groupby

            def longest_streak(items):
                return max((len(list(run)) for _, run in groupby(items)), default=0)
        """),
        correct_start_index=dedented("""
            def longest_streak(items):
                best = 0
                start = 0
                for end in range(1, len(items) + 1):
                    if end == len(items) or items[end] != items[start]:
                        best = max(best, end - start)
                        start = end
                return best
        """),
        wrong_reset_zero=edit_once(_LONGEST_STREAK, '        else:\n            current = 1', '        else:\n            current = 0'),
        wrong_most_common=dedented("""
            def longest_streak(items):
                return max((items.count(x) for x in items), default=0)
        """),
        wrong_last_run=dedented("""
            def longest_streak(items):
                best = 0
                run = 1
                for i in range(1, len(items)):
                    if items[i] == items[i - 1]:
                        run += 1
                    else:
                        best = max(best, run)
                        run = 1
                return best
        """),
    ),
    'parse_key_values': dict(
        nl=("Write a function parse_key_values(text) that parses a string of 'key=value' pairs separated by semicolons "
            'into a dict of strings, stripping spaces around keys and values and skipping empty segments; only the '
            'first = of a pair separates key from value, and a later key overrides an earlier one.'),
        tests=[
            "parse_key_values('a=1;b=2') == {'a': '1', 'b': '2'}", "parse_key_values('') == {}",
            "parse_key_values(' name = Ada ; lang = py ') == {'name': 'Ada', 'lang': 'py'}",
            "parse_key_values('x=1;;y=2;') == {'x': '1', 'y': '2'}", "parse_key_values('k=v;') == {'k': 'v'}",
            "parse_key_values('url=a=b; mode = fast') == {'url': 'a=b', 'mode': 'fast'}",
            "parse_key_values('a=1; a=2;') == {'a': '2'}",
            "parse_key_values('empty= ; full = yes') == {'empty': '', 'full': 'yes'}",
            "parse_key_values(' ; key = value ; ') == {'key': 'value'}",
            "parse_key_values('eq= 2+2=4 ;n=0;') == {'eq': '2+2=4', 'n': '0'}",
        ],
        ref=_PARSE_KEY_VALUES,
        correct_partition=dedented("""
            def parse_key_values(text):
                pairs = [part.partition('=') for part in text.split(';') if part.strip()]
                return {k.strip(): v.strip() for k, _, v in pairs}
        """),
        correct_index=dedented("""
            def parse_key_values(text):
                entries = []
                for chunk in text.split(';'):
                    chunk = chunk.strip()
                    if chunk:
                        eq = chunk.index('=')
                        entries.append((chunk[:eq].strip(), chunk[eq + 1:].strip()))
                return dict(entries)
        """),
        wrong_no_strip=edit_once(_PARSE_KEY_VALUES, 'result[key.strip()] = value.strip()', 'result[key] = value'),
        wrong_no_skip=edit_once(_PARSE_KEY_VALUES, '        if not segment.strip():\n            continue\n', ''),
        wrong_one_liner=dedented("""
            def parse_key_values(text):
                return dict(pair.split('=') for pair in text.split(';'))
        """),
    ),
    'percent_change': dict(
        nl=('Write a function percent_change(old, new) that returns the percentage change from old to new, rounded to '
            'one decimal place, or None when old is 0.'),
        tests=[
            'percent_change(50, 75) == 50.0', 'percent_change(200, 150) == -25.0', 'percent_change(0, 10) is None',
            'percent_change(3, 4) == 33.3', 'percent_change(80, 80) == 0.0', 'percent_change(8, 2) == -75.0',
            'percent_change(0, 0) is None', 'percent_change(7, 10) == 42.9', 'percent_change(1, 3) == 200.0',
            'percent_change(2.5, 2) == -20.0',
        ],
        ref=_PERCENT_CHANGE,
        correct_ratio=dedented("""
            def percent_change(old, new):
                return None if not old else round((new / old - 1) * 100, 1)
        """),
        correct_guarded=dedented("""
            def percent_change(old, new):
                if old != 0:
                    difference = new - old
                    return round(100 * difference / old, 1)
                return None
        """),
        wrong_divide_new=edit_once(_PERCENT_CHANGE, '/ old * 100', '/ new * 100'),
        wrong_sign=edit_once(_PERCENT_CHANGE, '(new - old)', '(old - new)'),
        wrong_share=dedented("""
            def percent_change(old, new):
                if not old:
                    return None
                return round(new / old * 100, 1)
        """),
    ),
    'mask_card': dict(
        nl=("Write a function mask_card(number) that replaces every character of the string number except the last "
            "four with '*'; a string of four characters or fewer is returned unchanged."),
        tests=[
            "mask_card('4111111111111111') == '************1111'", "mask_card('1234') == '1234'",
            "mask_card('') == ''", "mask_card('12345') == '*2345'", "mask_card('abc') == 'abc'",
            "mask_card('9876543210') == '******3210'", "mask_card('0000-1111') == '*****1111'",
            "mask_card('7') == '7'", "mask_card('1234567') == '***4567'",
            "mask_card('30569309025904') == '**********5904'",
        ],
        ref=_MASK_CARD,
        correct_rjust=dedented("""
            def mask_card(number):
                return number[-4:].rjust(len(number), '*')
        """),
        correct_enumerate=dedented("""
            def mask_card(number):
                cutoff = len(number) - 4
                return ''.join('*' if position < cutoff else char for position, char in enumerate(number))
        """),
        wrong_first_four=edit_once(_MASK_CARD, 'number[-4:]', 'number[:4]'),
        wrong_mask_front=dedented("""
            def mask_card(number):
                masked = ''
                for i, ch in enumerate(number):
                    if i < 4:
                        masked += '*'
                    else:
                        masked += ch
                return masked
        """),
        wrong_sixteen_digits=dedented("""
            def mask_card(number):
                return '*' * 12 + number[-4:]
        """),
    ),
    'group_by_length': dict(
        nl=('Write a function group_by_length(words) that returns a dict mapping each word length to the list of the '
            'words of that length, in the order they appear in words.'),
        tests=[
            'group_by_length([]) == {}', "group_by_length(['hi']) == {2: ['hi']}",
            "group_by_length(['to', 'be', 'or', 'not']) == {2: ['to', 'be', 'or'], 3: ['not']}",
            "group_by_length(['apple', 'pear', 'kiwi', 'plum']) == {5: ['apple'], 4: ['pear', 'kiwi', 'plum']}",
            "group_by_length(['b', 'a', 'c']) == {1: ['b', 'a', 'c']}",
            "group_by_length(['', 'x', '']) == {0: ['', ''], 1: ['x']}",
            "group_by_length(['dog', 'cat', 'dog']) == {3: ['dog', 'cat', 'dog']}",
            "group_by_length(['sun', 'moon', 'star', 'sky']) == {3: ['sun', 'sky'], 4: ['moon', 'star']}",
            "group_by_length(['zeta', 'alpha', 'beta', 'gamma']) == {4: ['zeta', 'beta'], 5: ['alpha', 'gamma']}",
            "group_by_length(['one', 'three', 'five']) == {3: ['one'], 5: ['three'], 4: ['five']}",
        ],
        ref=_GROUP_BY_LENGTH,
        correct_defaultdict=dedented("""
            from collections import defaultdict

            def group_by_length(words):
                by_size = defaultdict(list)
                for w in words:
                    by_size[len(w)].append(w)
                return dict(by_size)
        """),
        correct_comprehension=dedented("""
            def group_by_length(words):
                lengths = sorted({len(word) for word in words})
                return {n: [word for word in words if len(word) == n] for n in lengths}
        """),
        wrong_overwrite=edit_once(_GROUP_BY_LENGTH, 'groups.setdefault(len(word), []).append(word)', 'groups[len(word)] = [word]'),
        wrong_sorted=edit_once(_GROUP_BY_LENGTH, 'for word in words:', 'for word in sorted(words):'),
        wrong_counts=dedented("""
            def group_by_length(words):
                counts = {}
                for w in words:
                    counts[len(w)] = counts.get(len(w), 0) + 1
                return counts
        """),
    ),
    'invert_dict': dict(
        nl=('Write a function invert_dict(mapping) that returns a dict mapping each value of mapping to the sorted '
            'list of the keys that have that value.'),
        tests=[
            'invert_dict({}) == {}', "invert_dict({'a': 1}) == {1: ['a']}",
            "invert_dict({'b': 1, 'a': 1, 'c': 2}) == {1: ['a', 'b'], 2: ['c']}",
            "invert_dict({'z': 0, 'y': 0, 'x': 0}) == {0: ['x', 'y', 'z']}",
            "invert_dict({3: 'odd', 2: 'even', 1: 'odd'}) == {'odd': [1, 3], 'even': [2]}",
            "invert_dict({'pear': 'green', 'apple': 'red', 'lime': 'green'}) == {'green': ['lime', 'pear'], 'red': ['apple']}",
            "invert_dict({'k': 'v', 'j': 'w'}) == {'v': ['k'], 'w': ['j']}",
            "invert_dict({3: 'c', 1: 'c', 2: 'c'}) == {'c': [1, 2, 3]}",
            "invert_dict({'tom': 30, 'ann': 25, 'bob': 30, 'eve': 25}) == {30: ['bob', 'tom'], 25: ['ann', 'eve']}",
            "invert_dict({'q': None, 'p': True}) == {None: ['q'], True: ['p']}",
        ],
        ref=_INVERT_DICT,
        correct_comprehension=dedented("""
            def invert_dict(mapping):
                return {v: sorted(k for k in mapping if mapping[k] == v) for v in set(mapping.values())}
        """),
        correct_sorted_items=dedented("""
            def invert_dict(mapping):
                result = {}
                for k, v in sorted(mapping.items()):
                    result[v] = result.get(v, []) + [k]
                return result
        """),
        wrong_unsorted=edit_once(_INVERT_DICT, '    for keys in inverted.values():\n        keys.sort()\n', ''),
        wrong_reset=edit_once(_INVERT_DICT, '        if value not in inverted:\n            inverted[value] = []\n',
                              '        inverted[value] = []\n'),
        wrong_one_key=dedented("""
            def invert_dict(mapping):
                return {value: key for key, value in mapping.items()}
        """),
    ),
    'window_sums': dict(
        nl=('Write a function window_sums(nums, k) that returns the sums of every k consecutive elements of nums, '
            'from left to right; the result is empty when k is larger than the length of nums.'),
        tests=[
            'window_sums([1, 2, 3, 4], 2) == [3, 5, 7]', 'window_sums([1, 2, 3, 4], 4) == [10]',
            'window_sums([1, 2], 3) == []', 'window_sums([], 1) == []', 'window_sums([5, -1, 2], 1) == [5, -1, 2]',
            'window_sums([1, 1, 1, 1, 1], 3) == [3, 3, 3]', 'window_sums([10, 20, 30, 40, 50], 2) == [30, 50, 70, 90]',
            'window_sums([2, 4, 6], 3) == [12]', 'window_sums([0, 3, -3, 3, 0], 2) == [3, 0, 0, 3]',
            'window_sums([4, 1, 7, 2, 9, 3], 4) == [14, 19, 21]',
        ],
        ref=_WINDOW_SUMS,
        correct_sliding=dedented("""
            def window_sums(nums, k):
                if k > len(nums):
                    return []
                total = sum(nums[:k])
                sums = [total]
                for i in range(k, len(nums)):
                    total += nums[i] - nums[i - k]
                    sums.append(total)
                return sums
        """),
        correct_prefix=dedented("""
            from itertools import accumulate

            def window_sums(nums, k):
                prefix = [0, *accumulate(nums)]
                return [prefix[end] - prefix[end - k] for end in range(k, len(prefix))]
        """),
        wrong_range=edit_once(_WINDOW_SUMS, 'range(last_start + 1)', 'range(last_start)'),
        wrong_partial=edit_once(_WINDOW_SUMS, 'last_start = len(nums) - k', 'last_start = len(nums) - 1'),
        wrong_chunks=dedented("""
            def window_sums(nums, k):
                return [sum(nums[i:i + k]) for i in range(0, len(nums), k)]
        """),
    ),
    'split_bill': dict(
        nl=('Write a function split_bill(total_cents, people) that splits an amount of total_cents between people '
            'as whole cents that add up to the total, as evenly as possible, with the extra cents going to the first '
            'people in the list.'),
        tests=[
            'split_bill(1000, 3) == [334, 333, 333]', 'split_bill(900, 3) == [300, 300, 300]', 'split_bill(5, 1) == [5]',
            'split_bill(10, 4) == [3, 3, 2, 2]', 'split_bill(0, 2) == [0, 0]', 'split_bill(7, 7) == [1] * 7',
            'split_bill(2, 3) == [1, 1, 0]', 'split_bill(1001, 2) == [501, 500]',
            'split_bill(99, 5) == [20, 20, 20, 20, 19]', 'split_bill(12345, 7) == [1764] * 4 + [1763] * 3',
        ],
        ref=_SPLIT_BILL,
        correct_loop=dedented("""
            def split_bill(total_cents, people):
                amounts = [total_cents // people] * people
                for i in range(total_cents % people):
                    amounts[i] += 1
                return amounts
        """),
        correct_ceiling=dedented("""
            def split_bill(total_cents, people):
                result = []
                left = total_cents
                for remaining in range(people, 0, -1):
                    part = -(-left // remaining)
                    result.append(part)
                    left -= part
                return result
        """),
        wrong_boundary=edit_once(_SPLIT_BILL, 'i < remainder', 'i <= remainder'),
        wrong_round=dedented("""
            def split_bill(total_cents, people):
                return [round(total_cents / people)] * people
        """),
        wrong_rest_to_last=dedented("""
            def split_bill(total_cents, people):
                each = total_cents // people
                shares = [each] * (people - 1)
                shares.append(total_cents - each * (people - 1))
                return shares
        """),
    ),
    'compress_ranges': dict(
        nl=('Write a function compress_ranges(nums) that describes a sorted list of distinct integers as a string of '
            "comma-separated ranges, a run of consecutive integers written 'first-last' and a lone number by itself, "
            "e.g. [1, 2, 3, 5, 7, 8] gives '1-3,5,7-8'."),
        tests=[
            "compress_ranges([1, 2, 3, 5, 7, 8]) == '1-3,5,7-8'", "compress_ranges([]) == ''",
            "compress_ranges([4]) == '4'", "compress_ranges([1, 2]) == '1-2'", "compress_ranges([1, 3, 5]) == '1,3,5'",
            "compress_ranges([0, 1, 2, 3, 4]) == '0-4'", "compress_ranges([-2, -1, 0, 5]) == '-2-0,5'",
            "compress_ranges([10, 11, 20, 21, 22, 40]) == '10-11,20-22,40'", "compress_ranges([7, 9, 10]) == '7,9-10'",
            "compress_ranges([100, 101, 102, 104]) == '100-102,104'",
        ],
        ref=_COMPRESS_RANGES,
        correct_groupby=dedented("""
            from itertools import groupby

            def compress_ranges(nums):
                pieces = []
                for _, run in groupby(enumerate(nums), key=lambda pair: pair[1] - pair[0]):
                    values = [value for _, value in run]
                    pieces.append(f'{values[0]}-{values[-1]}' if len(values) > 1 else str(values[0]))
                return ','.join(pieces)
        """),
        correct_bounds=dedented("""
            def compress_ranges(nums):
                if not nums:
                    return ''
                ranges = [[nums[0], nums[0]]]
                for n in nums[1:]:
                    if n == ranges[-1][1] + 1:
                        ranges[-1][1] = n
                    else:
                        ranges.append([n, n])
                return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in ranges)
        """),
        wrong_always_range=edit_once(_COMPRESS_RANGES, "str(nums[i]) if i == j else f'{nums[i]}-{nums[j]}'",
                                     "f'{nums[i]}-{nums[j]}'"),
        wrong_spaces=edit_once(_COMPRESS_RANGES, "','.join(parts)", "', '.join(parts)"),
        wrong_no_flush=dedented("""
            def compress_ranges(nums):
                out = []
                start = prev = None
                for n in nums:
                    if start is None:
                        start = prev = n
                    elif n == prev + 1:
                        prev = n
                    else:
                        out.append(str(start) if start == prev else f'{start}-{prev}')
                        start = prev = n
                return ','.join(out)
        """),
    ),
    'tally_votes': dict(
        nl=('Write a function tally_votes(votes) that returns the name occurring most often in the list votes; a tie '
            'goes to the name that comes first alphabetically, and an empty list gives None.'),
        tests=[
            "tally_votes(['ann', 'bob', 'ann']) == 'ann'", 'tally_votes([]) is None', "tally_votes(['zoe']) == 'zoe'",
            "tally_votes(['bob', 'ann']) == 'ann'", "tally_votes(['cy', 'bo', 'cy', 'bo']) == 'bo'",
            "tally_votes(['x', 'y', 'y', 'z', 'z', 'z']) == 'z'", "tally_votes(['tom', 'sue', 'sue', 'tom', 'al']) == 'sue'",
            "tally_votes(['d', 'c', 'b', 'a']) == 'a'",
            "tally_votes(['max', 'max', 'lea', 'lea', 'lea', 'max', 'ida']) == 'lea'",
            "tally_votes(['b', 'a', 'b', 'a', 'c', 'c']) == 'a'",
        ],
        ref=_TALLY_VOTES,
        correct_counter=dedented("""
            from collections import Counter

            def tally_votes(votes):
                ranked = sorted(Counter(votes).items(), key=lambda item: (-item[1], item[0]))
                return ranked[0][0] if ranked else None
        """),
        correct_count_loop=dedented("""
            def tally_votes(votes):
                winner, best = None, 0
                for candidate in sorted(set(votes)):
                    n = votes.count(candidate)
                    if n > best:
                        winner, best = candidate, n
                return winner
        """),
        wrong_max=edit_once(_TALLY_VOTES, 'return min(', 'return max('),
        wrong_no_tiebreak=edit_once(_TALLY_VOTES, 'key=lambda name: (-counts[name], name)', 'key=lambda name: -counts[name]'),
        wrong_last_alphabetically=dedented("""
            def tally_votes(votes):
                if not votes:
                    return None
                counts = {}
                for v in votes:
                    counts[v] = counts.get(v, 0) + 1
                return sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))[-1][0]
        """),
    ),
    'bump_version': dict(
        nl=("Write a function bump_version(version, part) that takes a version string 'major.minor.patch' and returns "
            "it with the part named by part ('major', 'minor' or 'patch') increased by one and the parts after it "
            'reset to zero.'),
        tests=[
            "bump_version('1.2.3', 'patch') == '1.2.4'", "bump_version('1.2.3', 'minor') == '1.3.0'",
            "bump_version('1.2.3', 'major') == '2.0.0'", "bump_version('1.0.0', 'patch') == '1.0.1'",
            "bump_version('1.9.9', 'minor') == '1.10.0'", "bump_version('9.9.9', 'major') == '10.0.0'",
            "bump_version('2.0.9', 'patch') == '2.0.10'", "bump_version('3.14.1', 'minor') == '3.15.0'",
            "bump_version('0.1.0', 'major') == '1.0.0'", "bump_version('4.5.6', 'major') == '5.0.0'",
        ],
        ref=_BUMP_VERSION,
        correct_index=dedented("""
            def bump_version(version, part):
                numbers = [int(x) for x in version.split('.')]
                position = ['major', 'minor', 'patch'].index(part)
                numbers[position] += 1
                numbers[position + 1:] = [0] * (2 - position)
                return '.'.join(map(str, numbers))
        """),
        correct_reset_flag=dedented("""
            def bump_version(version, part):
                names = ('major', 'minor', 'patch')
                values = dict(zip(names, map(int, version.split('.'))))
                reset = False
                for name in names:
                    if reset:
                        values[name] = 0
                    elif name == part:
                        values[name] += 1
                        reset = True
                return '{major}.{minor}.{patch}'.format(**values)
        """),
        wrong_no_int=edit_once(_BUMP_VERSION, 'int(piece)', 'piece'),
        wrong_no_reset=dedented("""
            def bump_version(version, part):
                parts = version.split('.')
                index = {'major': 0, 'minor': 1, 'patch': 2}[part]
                parts[index] = str(int(parts[index]) + 1)
                return '.'.join(parts)
        """),
        wrong_reset_others=dedented("""
            def bump_version(version, part):
                old = dict(zip(['major', 'minor', 'patch'], map(int, version.split('.'))))
                new = {name: 0 for name in old}
                new[part] = old[part] + 1
                return f"{new['major']}.{new['minor']}.{new['patch']}"
        """),
    ),
    'hex_to_rgb': dict(
        nl=("Write a function hex_to_rgb(color) that converts a colour written '#rrggbb', or in the short form '#rgb' "
            'where each digit stands for itself twice, to a tuple of three integers from 0 to 255; hex letters may be '
            'upper or lower case.'),
        tests=[
            "hex_to_rgb('#ff8800') == (255, 136, 0)", "hex_to_rgb('#000000') == (0, 0, 0)",
            "hex_to_rgb('#FFFFFF') == (255, 255, 255)", "hex_to_rgb('#1a2B3c') == (26, 43, 60)",
            "hex_to_rgb('#f80') == (255, 136, 0)", "hex_to_rgb('#FFF') == (255, 255, 255)",
            "hex_to_rgb('#abc') == (170, 187, 204)", "hex_to_rgb('#123') == (17, 34, 51)",
            "hex_to_rgb('#0a0') == (0, 170, 0)", "hex_to_rgb('#888') == (136, 136, 136)",
        ],
        ref=_HEX_TO_RGB,
        correct_bytes=dedented("""
            def hex_to_rgb(color):
                code = color[1:]
                if len(code) == 3:
                    return tuple(17 * int(c, 16) for c in code)
                return tuple(bytes.fromhex(code))
        """),
        correct_shift=dedented("""
            def hex_to_rgb(color):
                hex_part = color[1:]
                if len(hex_part) == 3:
                    hex_part = hex_part[0] * 2 + hex_part[1] * 2 + hex_part[2] * 2
                value = int(hex_part, 16)
                return (value >> 16, (value >> 8) & 255, value & 255)
        """),
        wrong_no_short=edit_once(_HEX_TO_RGB, "    if len(digits) == 3:\n        digits = ''.join(ch * 2 for ch in digits)\n", ''),
        wrong_base_ten=edit_once(_HEX_TO_RGB, 'int(digits[i:i + 2], 16)', 'int(digits[i:i + 2])'),
        wrong_short_times_16=dedented("""
            def hex_to_rgb(color):
                color = color.lstrip('#')
                if len(color) == 3:
                    return tuple(int(c, 16) * 16 for c in color)
                return tuple(int(color[i:i + 2], 16) for i in range(0, 6, 2))
        """),
    ),
    'join_words': dict(
        nl=("Write a function join_words(words) that joins a list of words into an English phrase: no words give '', "
            "one word is returned as it is, and more words are separated by ', ' except the last two, which are "
            "joined with ' and ' (no comma before 'and')."),
        tests=[
            "join_words([]) == ''", "join_words(['tea']) == 'tea'", "join_words(['salt', 'pepper']) == 'salt and pepper'",
            "join_words(['red', 'green', 'blue']) == 'red, green and blue'", "join_words(['a', 'b', 'c', 'd']) == 'a, b, c and d'",
            "join_words(['you', 'me']) == 'you and me'",
            "join_words(['one', 'two', 'three', 'four', 'five']) == 'one, two, three, four and five'",
            "join_words(['x', 'y', 'z']) == 'x, y and z'", "join_words(['Ann', 'Bob', 'Cy']) == 'Ann, Bob and Cy'",
            "join_words(['bread', 'butter', 'jam', 'honey']) == 'bread, butter, jam and honey'",
        ],
        ref=_JOIN_WORDS,
        correct_loop=dedented("""
            def join_words(words):
                phrase = ''
                for index, word in enumerate(words):
                    if index == 0:
                        phrase = word
                    elif index == len(words) - 1:
                        phrase += ' and ' + word
                    else:
                        phrase += ', ' + word
                return phrase
        """),
        correct_unpack=dedented("""
            def join_words(words):
                *rest, last = words or ['']
                return f"{', '.join(rest)} and {last}" if rest else last
        """),
        wrong_oxford_comma=edit_once(_JOIN_WORDS, "' and '", "', and '"),
        wrong_whole_list=edit_once(_JOIN_WORDS, "', '.join(words[:-1])", "', '.join(words)"),
        wrong_all_and=dedented("""
            def join_words(words):
                return ' and '.join(words)
        """),
    ),
    'final_balance': dict(
        nl=('Write a function final_balance(start, amounts) that applies the amounts in order to an account holding '
            'start: positive amounts are deposits, negative ones withdrawals, and a withdrawal that would make the '
            'balance negative is skipped. Return the final balance.'),
        tests=[
            'final_balance(100, [50, -30]) == 120', 'final_balance(0, []) == 0', 'final_balance(10, [-20]) == 10',
            'final_balance(10, [-20, 5]) == 15', 'final_balance(50, [-50, 10]) == 10',
            'final_balance(0, [-5, 20, -30, -15]) == 5', 'final_balance(30, [-40, -10, -25]) == 20',
            'final_balance(5, [10, -20, -15, 1]) == 1', 'final_balance(100, [-60, -60, 30]) == 70',
            'final_balance(20, [-21, -19, 3, -5]) == 4',
        ],
        ref=_FINAL_BALANCE,
        correct_reduce=dedented("""
            from functools import reduce

            def final_balance(start, amounts):
                return reduce(lambda total, change: total + change if total + change >= 0 else total, amounts, start)
        """),
        correct_while=dedented("""
            def final_balance(start, amounts):
                money = start
                i = 0
                while i < len(amounts):
                    too_big = amounts[i] < 0 and -amounts[i] > money
                    if not too_big:
                        money += amounts[i]
                    i += 1
                return money
        """),
        wrong_break=edit_once(_FINAL_BALANCE, 'continue', 'break'),
        wrong_clamp=dedented("""
            def final_balance(start, amounts):
                balance = start
                for amount in amounts:
                    balance = max(0, balance + amount)
                return balance
        """),
        wrong_plain_sum=dedented("""
            def final_balance(start, amounts):
                return start + sum(amounts)
        """),
    ),
    'swap_pairs': dict(
        nl=('Write a function swap_pairs(items) that returns a new list in which the first and second elements of '
            'items are swapped, the third and fourth, and so on; a last element without a partner stays in place.'),
        tests=[
            'swap_pairs([1, 2, 3, 4]) == [2, 1, 4, 3]', 'swap_pairs([]) == []', 'swap_pairs([7]) == [7]',
            'swap_pairs([1, 2, 3]) == [2, 1, 3]', "swap_pairs(['a', 'b']) == ['b', 'a']",
            'swap_pairs([1, 2, 3, 4, 5]) == [2, 1, 4, 3, 5]', 'swap_pairs([0, 0, 1]) == [0, 0, 1]',
            "swap_pairs(list('abcdefg')) == list('badcfeg')",
            'swap_pairs([10, 20, 30, 40, 50, 60]) == [20, 10, 40, 30, 60, 50]',
            'swap_pairs([5, 4, 3, 2, 1]) == [4, 5, 2, 3, 1]',
        ],
        ref=_SWAP_PAIRS,
        correct_chunks=dedented("""
            def swap_pairs(items):
                out = []
                for start in range(0, len(items), 2):
                    out.extend(reversed(items[start:start + 2]))
                return out
        """),
        correct_zip=dedented("""
            def swap_pairs(items):
                evens, odds = items[0::2], items[1::2]
                merged = [x for pair in zip(odds, evens) for x in pair]
                if len(items) % 2:
                    merged.append(items[-1])
                return merged
        """),
        wrong_step_one=edit_once(_SWAP_PAIRS, 'range(0, len(result) - 1, 2)', 'range(0, len(result) - 1)'),
        wrong_range_end=edit_once(_SWAP_PAIRS, 'range(0, len(result) - 1, 2)', 'range(0, len(result), 2)'),
        wrong_drop_last=dedented("""
            def swap_pairs(items):
                swapped = []
                for first, second in zip(items[::2], items[1::2]):
                    swapped += [second, first]
                return swapped
        """),
    ),
    'competition_ranks': dict(
        nl=('Write a function competition_ranks(scores) that returns the rank of each score in the list scores, where '
            'the highest score has rank 1, equal scores share a rank, and the rank after a tie skips the shared '
            'places, e.g. [90, 80, 90, 70] gives [1, 3, 1, 4].'),
        tests=[
            'competition_ranks([90, 80, 90, 70]) == [1, 3, 1, 4]', 'competition_ranks([]) == []',
            'competition_ranks([50]) == [1]', 'competition_ranks([10, 20, 30]) == [3, 2, 1]',
            'competition_ranks([5, 5, 5]) == [1, 1, 1]', 'competition_ranks([3, 1, 3, 2]) == [1, 4, 1, 3]',
            'competition_ranks([100, 100, 90, 90, 80]) == [1, 1, 3, 3, 5]',
            'competition_ranks([7, 9, 9, 4]) == [3, 1, 1, 4]',
            'competition_ranks([1, 2, 2, 3, 3, 3]) == [6, 4, 4, 1, 1, 1]',
            'competition_ranks([60, 75, 60, 75, 90]) == [4, 2, 4, 2, 1]',
        ],
        ref=_COMPETITION_RANKS,
        correct_index=dedented("""
            def competition_ranks(scores):
                ordered = sorted(scores, reverse=True)
                return [ordered.index(s) + 1 for s in scores]
        """),
        correct_first_place=dedented("""
            def competition_ranks(scores):
                rank_of = {}
                for place, value in enumerate(sorted(scores, reverse=True), start=1):
                    rank_of.setdefault(value, place)
                return [rank_of[value] for value in scores]
        """),
        wrong_ascending=edit_once(_COMPETITION_RANKS, 'other > score', 'other < score'),
        wrong_dense=dedented("""
            def competition_ranks(scores):
                distinct = sorted(set(scores), reverse=True)
                return [distinct.index(s) + 1 for s in scores]
        """),
        wrong_no_ties=dedented("""
            def competition_ranks(scores):
                order = sorted(range(len(scores)), key=lambda i: -scores[i])
                ranks = [0] * len(scores)
                for position, index in enumerate(order, start=1):
                    ranks[index] = position
                return ranks
        """),
    ),
}

# One edit of each reference that keeps what it does (added 2026-12-07 without scoring any of them with a model);
# `held_out_cases.py` adds it as the case ``equivalent`` and pairs it with the near-copy mistakes of its task.
EQUIVALENT_EDITS = {
    "max_gap": ("range(1, len(s))", "range(1, len(s), 1)"),
    "initials": ("word[0].upper()", "word[:1].upper()"),
    "rotate_left": ("if not items:", "if len(items) == 0:"),
    "vowel_words": ("in 'aeiou'", "in 'uoiea'"),
    "longest_streak": ("if item == previous:", "if previous == item:"),
    "parse_key_values": ("if not segment.strip():", "if segment.strip() == '':"),
    "percent_change": ("if old == 0:", "if not old:"),
    "mask_card": ("'*' * (len(number) - 4)", "(len(number) - 4) * '*'"),
    "group_by_length": (".append(word)", ".extend([word])"),
    "invert_dict": ("if value not in inverted:", "if not value in inverted:"),
    "window_sums": ("range(last_start + 1)", "range(0, last_start + 1)"),
    "split_bill": ("if i < remainder", "if remainder > i"),
    "compress_ranges": ("j += 1", "j = j + 1"),
    "tally_votes": ("counts.get(name, 0) + 1", "1 + counts.get(name, 0)"),
    "bump_version": ("if part == 'major':", "if 'major' == part:"),
    "hex_to_rgb": ("ch * 2", "ch + ch"),
    "join_words": ("words[:-1]", "words[:len(words) - 1]"),
    "final_balance": ("if balance + amount < 0:", "if amount + balance < 0:"),
    "swap_pairs": ("result = list(items)", "result = list(items[:])"),
    "competition_ranks": ("ranks.append(higher + 1)", "ranks += [higher + 1]"),
}
