"""Team controls in chat, for admins: a channel's answer window, seasons, forgetting a person,
and the audit log of admin actions. `words` parses what was typed (pure); `service` acts."""
