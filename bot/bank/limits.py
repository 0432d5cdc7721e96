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
