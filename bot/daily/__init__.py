"""Daily questions: a schedule per channel, posted exactly once per local day."""
