"""The Discord adapter (discord.py 2.x): `/zeroquiz` app commands, persistent buttons, embeds."""
