"""Length limits for question texts.

Chosen so every rendered message fits Slack's and Discord's limits by construction (a Slack
section holds 3000 chars, a Discord embed field 1024, an ephemeral reply 2000): a prompt, five
options and an explanation at these maxima still fit the largest message the adapters build.
"""

MAX_ID = 40
MAX_PROMPT = 400
MAX_OPTION = 150
MAX_EXPLANATION = 1000
MAX_SOURCE = 200
MIN_OPTIONS = 2
MAX_OPTIONS = 5  # one row of buttons on Discord
DIFFICULTIES = (1, 2, 3)

# Hostile-input guards. A valid file nests 5 levels (file, questions, question, options, option);
# PyYAML's composer recurses once per level, so without a bound a deep file ends in RecursionError.
NEEDED_DEPTH = 5
MAX_DEPTH = 10
# The largest bundled file is under 30 kB; a hostile file at this size takes
# pure-Python PyYAML at most about 2.5 s and 130 MB (1 MB took 12 s and 400 MB).
MAX_FILE_BYTES = 250_000
