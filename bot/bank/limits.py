"""Length limits for question texts.

Chosen so every rendered message fits Slack's and Discord's limits by construction (a Slack
section holds 3000 chars, a Discord embed field 1024, an ephemeral reply 2000): a prompt, five
options and an explanation at these maxima still fit the largest message the adapters build.
"""

MAX_ID = 40
MAX_PROMPT = 400
MAX_OPTION = 150
MAX_EXPLANATION = 1000
MAX_WHY = 300  # one option's reason: shown above the explanation in the private reply
MAX_SOURCE = 200
MIN_OPTIONS = 2
MAX_OPTIONS = 5  # one row of buttons on Discord
DIFFICULTIES = (1, 2, 3)

# Hostile-input guards. A valid file nests 6 levels (file, questions, question, options, option,
# why); PyYAML's composer recurses once per level, so without a bound a deep file ends in
# RecursionError.
NEEDED_DEPTH = 6  # a template: file, templates, template, cases, case, label
MAX_DEPTH = 10
# Work is bounded by size and by values (every key, text, list and mapping), as pure-Python PyYAML
# spends about 0.5 s a MB plus 15 us and 0.7 kB a value. The largest bundled file is under 30 kB and
# 900 values; a question is about 45 values. At these limits a hostile file took at most 1.2 s.
MAX_FILE_BYTES = 2_000_000
MAX_VALUES = 50_000
