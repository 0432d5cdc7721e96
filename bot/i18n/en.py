"""English texts."""

MESSAGES: dict[str, str] = {
    # questions and rounds
    "quiz_title": "ZeroQuiz",
    "quiz_title_run": "ZeroQuiz · Question {n}/{total}",
    "quiz_title_daily": "ZeroQuiz · Daily question",
    "closes_at": "Closes {time}",
    "answer_count": "{count} answered so far",
    "pick_letter": "Pick a letter to answer. Only you will see whether you were right.",
    # private feedback
    "feedback_correct": "✅ Correct! The answer is {letter}) {text}",
    "feedback_wrong": "❌ Not quite: you chose {chosen}. The answer is {letter}) {text}",
    "feedback_already": "You already answered {letter}. Your first answer is the one that counts.",
    "feedback_closed": "This question is closed, so answers no longer count.",
    "feedback_unknown": "This question no longer exists.",
    "button_invalid": "That button is no longer valid.",
    "feedback_points": "+{points} points",
    "why": "Why",
    # reveal
    "reveal_answer": "The answer: {letter}) {text}",
    "reveal_right": "{right} of {total} answered right",
    "reveal_nobody": "Nobody answered this one.",
    "reveal_fastest": "Fastest correct answer: {name} in {seconds} s",
    "reveal_spread": "How people answered",
    # runs
    "run_standings_title": "ZeroQuiz · Results of this run",
    "run_standings_empty": "Nobody scored in this run.",
    "run_started": "A run of {count} questions has started.",
    "run_busy": "A run is already going in this channel. Wait for it to finish, or end it with `/zeroquiz stop`.",
    "run_count_invalid": "Choose between 1 and {max} questions.",
    "no_open_round": "There is no open question in this channel.",
    "round_closed_now": "Closed the open question.",
    "question_posted": "Question posted.",
    # topics and levels
    "topic_unknown": (
        "There is no topic \u201c{word}\u201d. Topics: {topics}. "
        "Levels: easy, medium, hard (or 1, 2, 3)."
    ),
    "level_unknown": (
        "There is no level \u201c{word}\u201d. Levels: easy, medium, hard (or 1, 2, 3)."
    ),
    "filter_no_match": "No question matches that topic and level.",
    # leaderboards and stats
    "period_all": "all time",
    "period_week": "this week",
    "period_month": "this month",
    "leaderboard_title": "ZeroQuiz leaderboard · {period}",
    "leaderboard_empty": "No scores yet for {period}.",
    "leaderboard_row": "{rank}. {name} · {points} pts · {correct} right",
    "leaderboard_you": "You: #{rank} · {points} pts · {correct} right",
    "leaderboard_you_none": "You have no score for {period} yet.",
    "stats_title": "Your ZeroQuiz stats",
    "stats_answered": "Answered",
    "stats_correct": "Correct",
    "stats_accuracy": "Accuracy",
    "stats_streak": "Current streak",
    "stats_best_streak": "Best streak",
    "stats_points": "Points",
    "stats_due_now": "Review cards due now",
    "stats_due_week": "Review cards due this week",
    # commands
    "help_title": "ZeroQuiz: learn ZeRO and sharded optimizers, one question at a time",
    "help_cmd_question": "post a question now, of a topic and level if given",
    "help_cmd_start": "a run of N questions in a row, of a topic and level if given",
    "help_cmd_leaderboard": "the team's leaderboard",
    "help_cmd_stats": "your own answers, accuracy and streaks",
    "help_cmd_close": "close the open question now",
    "help_cmd_lang": "this channel's language",
    "help_cmd_daily": "a daily question; `daily` shows it, `daily off` stops it",
    "help_cmd_help": "this list",
    "help_admins": "(admins)",
    "help_footer": (
        "Click a letter to answer: only you see whether you were right, and why. "
        "Your first answer counts; a correct one is worth 10 points."
    ),
    "period_invalid": "Choose a period: week, month or all.",
    "cannot_post": "I can't post in this channel: {reason}",
    "post_later": "The chat service isn't answering right now. I'll post the question as soon as it is back.",
    # daily questions
    "daily_set": "Daily question scheduled.",
    "daily_show": "Daily question here at {time} ({tz}), {days}, open for {hours} h.",
    "daily_next": "Next one: {when} ({tz}).",
    "daily_none": "This channel has no daily question. Set one with `/zeroquiz daily 09:00 Asia/Jakarta`.",
    "daily_off": "Daily question stopped for this channel.",
    "daily_usage": "Usage: `/zeroquiz daily HH:MM Time/Zone [mon-fri|every day|mon,wed,fri] [topics] [8h]`.",
    "daily_bad_time": "'{value}' is not a time: use 24-hour HH:MM, like 09:00.",
    "daily_bad_zone": "'{value}' is not a time zone I know: use a name like Asia/Jakarta or UTC.",
    "daily_bad_days": "'{value}' is not a set of days: use mon-fri, every day, or mon,wed,fri.",
    "daily_no_days": "Choose at least one day.",
    "daily_bad_window": "'{value}' is not an answer window: use hours or minutes between 5m and 23h, like 8h.",
    "daily_unavailable": "Daily questions are not available here.",
    "days_weekdays": "Monday to Friday",
    "days_every": "every day",
    "day_names": "Mon,Tue,Wed,Thu,Fri,Sat,Sun",
    "reveal_streaks": "🔥 Right several days running: {names}",
    # settings
    "lang_set": "This channel now uses English.",
    "lang_invalid": "Unknown language. Use `en` or `id`.",
    "not_admin": "Only admins can do that.",
    # slack
    "slack_answer_label": "Answer {letter}",
    # the Slack Home tab
    "home_title": "ZeroQuiz",
    "home_new": "You haven't answered a question yet. Type `/zeroquiz question` in a channel with ZeroQuiz to get one; your stats, streak and rank show up here.",
    "home_rank_title": "Your rank this week",
    "home_top_title": "Top 10 this week",
    "home_daily_title": "Daily questions (admins)",
    "home_daily_line": "{time} ({tz}), {days}",
    "home_daily_next": "next: {when} ({tz})",
    "home_daily_none": "No channel has a daily question. Set one with `/zeroquiz daily 09:00 Asia/Jakarta` in the channel.",
    "home_refreshed": "Updated when you open this tab.",
    "slack_failed": "Something went wrong on my side. Please try again in a moment.",
    "slack_err_not_in_channel": (
        "the app is not in this channel. Invite it with `/invite @ZeroQuiz`, then try again."
    ),
    "slack_err_channel_not_found": (
        "the app can't see this conversation (a private channel it wasn't invited to?). "
        "Invite it with `/invite @ZeroQuiz`, then try again."
    ),
    "slack_err_is_archived": "this channel is archived. Unarchive it or use another channel.",
    "slack_err_restricted": (
        "posting here is restricted (for example an announcement-only channel). "
        "Ask a workspace admin, or use another channel."
    ),
    "slack_err_missing_scope": (
        "the app lacks a permission. Ask an admin to reinstall it from deploy/slack-manifest.yaml."
    ),
    "slack_err_auth": "the app's token was rejected. Ask an admin to check SLACK_BOT_TOKEN.",
    "slack_err_busy": "Slack is rate-limiting the app. Try again in a minute.",
    "slack_err_unreachable": "Slack could not be reached. Try again in a minute.",
    "slack_err_other": "Slack answered `{error}`. Try again, or ask an admin to check the logs.",
    # discord
    "discord_cmd_group": "ZeroQuiz: learn ZeRO and sharded optimizers",
    "discord_cmd_question": "Post a question in this channel now",
    "discord_cmd_start": "Start a run of questions in a row",
    "discord_opt_count": "How many questions",
    "discord_opt_topic": "Only questions of this topic",
    "discord_opt_level": "Only questions of this difficulty",
    "discord_choice_easy": "easy",
    "discord_choice_medium": "medium",
    "discord_choice_hard": "hard",
    "discord_cmd_leaderboard": "Show the team's leaderboard",
    "discord_opt_period": "Which period to rank",
    "discord_cmd_stats": "Your own answers, accuracy and streaks",
    "discord_cmd_help": "How ZeroQuiz works",
    "discord_cmd_close": "Close the open question now (Manage Server)",
    "discord_cmd_lang": "Set this channel's language (Manage Server)",
    "discord_opt_lang": "The language for this channel",
    "discord_choice_en": "English",
    "discord_choice_id": "Bahasa Indonesia",
    "discord_cmd_daily": "Post a question every day (Manage Server)",
    "discord_opt_time": "Time of day, HH:MM",
    "discord_opt_timezone": "Time zone, for example Asia/Jakarta",
    "discord_opt_days": "Days, for example mon-fri or daily",
    "discord_opt_window": "Hours each daily question stays open",
    "discord_opt_off": "Turn the daily question off",
    "discord_missing_permission": (
        "I can't do that here: I need the {permission} permission in this channel."
    ),
    "discord_perm_view_channel": "View Channel",
    "discord_perm_send_messages": "Send Messages",
    "discord_perm_send_messages_in_threads": "Send Messages in Threads",
    "discord_perm_embed_links": "Embed Links",
    "discord_failed": "Something went wrong on my side. Please try again in a moment.",
    "discord_command_mismatch": "That command doesn't match this bot's /zeroquiz: Discord may still show an older version. Try again in a minute, or see `/zeroquiz help`.",
    # terminal
    "term_question": "Question {n}/{total}",
    "term_prompt": "Your answer ({letters}): ",
    "term_hint": "Type one of the letters {letters}, or a command such as /help.",
    "term_final": "Final score: {correct} of {answered} right, {points} points.",
    "term_leaderboard": "Local leaderboard (all time)",
    "term_bye": "Bye! Run `zeroquiz play` again for more questions.",
    "term_no_questions": "The question bank is empty.",
    # review flow (issue 11 item 1: the personal review)
    "review_title": "ZeroQuiz · Review",
    "review_due": "Cards due for review: {count}. Only you see this.",
    "review_left": "Still due: {count}.",
    "review_none": "Nothing to review right now.",
    "review_done": "That was the last card due. Well done!",
    "review_next_due": "Your next card is due {when}.",
    "review_already": "(Already reviewed: the schedule did not change.)",
    "review_next": "Next",
    "review_stop": "Stop",
    "review_stopped": "Review stopped. Come back with `/zeroquiz review` when cards are due.",
    "help_cmd_review": "review your own due cards privately, of a topic and level if given",
    "discord_cmd_review": "Review your due cards privately",
    "home_review_button": "Review now",
    "term_review_prompt": "Your answer ({letters}), or q to stop: ",
    # stop, run filters kept, daily topics (issue 11: `/zeroquiz stop`, daily topics)
    "help_cmd_stop": "end this channel's run now: the open question is revealed and the standings shown (who started the run, or admins)",
    "discord_cmd_stop": "End this channel's run now (who started it, or Manage Server)",
    "run_stopped": "Run stopped: the open question is revealed and the standings so far are posted.",
    "stop_no_run": "No run is going in this channel.",
    "stop_not_allowed": "Only the person who started this run, or an admin, can stop it.",
    "daily_topics": "Questions on: {topics}.",
    "daily_topics_hint": "Words after the days can also be topics: {topics}.",
    # memory charts beside a generated memory question's explanation (bot/charts.py)
    "chart_title": "Model states per GPU, {psi}B parameters on {nd} GPUs (◀ this question)",
    "chart_dp": "Plain DP",
    "chart_stage": "Stage {n}",
}
