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
    "feedback_points": "+{points} points",
    "why": "Why",
    # reveal
    "reveal_title": "ZeroQuiz · Answer",
    "reveal_answer": "The answer: {letter}) {text}",
    "reveal_right": "{right} of {total} answered right",
    "reveal_nobody": "Nobody answered this one.",
    "reveal_fastest": "Fastest correct answer: {name} in {seconds} s",
    "reveal_spread": "How people answered",
    # runs
    "run_standings_title": "ZeroQuiz · Results of this run",
    "run_standings_empty": "Nobody scored in this run.",
    "run_started": "A run of {count} questions has started.",
    "run_busy": "A run is already going in this channel. Wait for it to finish or close it.",
    "run_count_invalid": "Choose between 1 and {max} questions.",
    "no_open_round": "There is no open question in this channel.",
    "round_closed_now": "Closed the open question.",
    "question_posted": "Question posted.",
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
    # commands
    "help_title": "ZeroQuiz: learn ZeRO and sharded optimizers, one question at a time",
    "help": (
        "`/zeroquiz question`: post a question now\n"
        "`/zeroquiz start N`: a run of N questions in a row\n"
        "`/zeroquiz leaderboard [week|month|all]`: the team's leaderboard\n"
        "`/zeroquiz stats`: your own answers, accuracy and streaks\n"
        "`/zeroquiz close`: close the open question now (admins)\n"
        "`/zeroquiz lang en|id`: this channel's language (admins)\n"
        "Click a letter to answer: only you see whether you were right, and why. "
        "Your first answer counts; a correct one is worth 10 points."
    ),
    "period_invalid": "Choose a period: week, month or all.",
    "cannot_post": "I can't post in this channel: {reason}",
    # settings
    "lang_set": "This channel now uses English.",
    "lang_invalid": "Unknown language. Use `en` or `id`.",
    "not_admin": "Only admins can do that.",
    # terminal
    "term_question": "Question {n}/{total}",
    "term_prompt": "Your answer ({letters}): ",
    "term_hint": "Type one of the letters {letters}.",
    "term_final": "Final score: {correct} of {answered} right, {points} points.",
    "term_leaderboard": "Local leaderboard (all time)",
    "term_bye": "Bye! Run `zeroquiz play` again for more questions.",
    "term_no_questions": "The question bank is empty.",
}
