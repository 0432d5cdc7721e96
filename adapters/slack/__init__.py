"""The Slack surface: slack-bolt's AsyncApp over Socket Mode or HTTP, driving the shared core."""
