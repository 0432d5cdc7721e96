"""Indonesian texts (Bahasa Indonesia). Technical terms stay as engineers say them."""

MESSAGES: dict[str, str] = {
    # questions and rounds
    "quiz_title": "ZeroQuiz",
    "quiz_title_run": "ZeroQuiz · Soal {n}/{total}",
    "quiz_title_daily": "ZeroQuiz · Soal harian",
    "closes_at": "Ditutup {time}",
    "answer_count": "{count} orang sudah menjawab",
    "pick_letter": "Pilih huruf untuk menjawab. Hanya kamu yang melihat benar atau salahnya.",
    # private feedback
    "feedback_correct": "✅ Benar! Jawabannya {letter}) {text}",
    "feedback_wrong": "❌ Belum tepat: kamu memilih {chosen}. Jawabannya {letter}) {text}",
    "feedback_already": "Kamu sudah menjawab {letter}. Jawaban pertamamu yang dihitung.",
    "feedback_closed": "Soal ini sudah ditutup, jadi jawaban tidak dihitung lagi.",
    "feedback_unknown": "Soal ini sudah tidak ada.",
    "feedback_points": "+{points} poin",
    "why": "Penjelasan",
    # reveal
    "reveal_title": "ZeroQuiz · Jawaban",
    "reveal_answer": "Jawabannya: {letter}) {text}",
    "reveal_right": "{right} dari {total} menjawab benar",
    "reveal_nobody": "Belum ada yang menjawab soal ini.",
    "reveal_fastest": "Jawaban benar tercepat: {name} dalam {seconds} detik",
    "reveal_spread": "Sebaran jawaban",
    # runs
    "run_standings_title": "ZeroQuiz · Hasil sesi ini",
    "run_standings_empty": "Tidak ada yang mendapat poin di sesi ini.",
    "run_started": "Sesi {count} soal dimulai.",
    "run_busy": (
        "Masih ada sesi yang berjalan di channel ini. Tunggu sampai selesai atau tutup dulu."
    ),
    "run_count_invalid": "Pilih antara 1 dan {max} soal.",
    "no_open_round": "Tidak ada soal yang sedang terbuka di channel ini.",
    "round_closed_now": "Soal yang terbuka sudah ditutup.",
    "question_posted": "Soal sudah dikirim.",
    # leaderboards and stats
    "period_all": "sepanjang waktu",
    "period_week": "minggu ini",
    "period_month": "bulan ini",
    "leaderboard_title": "Papan skor ZeroQuiz · {period}",
    "leaderboard_empty": "Belum ada skor untuk {period}.",
    "leaderboard_row": "{rank}. {name} · {points} poin · {correct} benar",
    "leaderboard_you": "Kamu: #{rank} · {points} poin · {correct} benar",
    "leaderboard_you_none": "Kamu belum punya skor untuk {period}.",
    "stats_title": "Statistik ZeroQuiz kamu",
    "stats_answered": "Dijawab",
    "stats_correct": "Benar",
    "stats_accuracy": "Akurasi",
    "stats_streak": "Streak saat ini",
    "stats_best_streak": "Streak terbaik",
    "stats_points": "Poin",
    # commands
    "help_title": "ZeroQuiz: belajar ZeRO dan sharded optimizer, satu soal demi satu soal",
    "help": (
        "`/zeroquiz question`: kirim satu soal sekarang\n"
        "`/zeroquiz start N`: sesi N soal berturut-turut\n"
        "`/zeroquiz leaderboard [week|month|all]`: papan skor tim\n"
        "`/zeroquiz stats`: jawaban, akurasi, dan streak kamu\n"
        "`/zeroquiz close`: tutup soal yang sedang terbuka (admin)\n"
        "`/zeroquiz lang en|id`: bahasa channel ini (admin)\n"
        "Klik huruf untuk menjawab: hanya kamu yang melihat benar atau salahnya, "
        "beserta alasannya. "
        "Jawaban pertama yang dihitung; jawaban benar bernilai 10 poin."
    ),
    "period_invalid": "Pilih periode: week, month, atau all.",
    "cannot_post": "Saya tidak bisa mengirim pesan di channel ini: {reason}",
    # settings
    "lang_set": "Channel ini sekarang memakai Bahasa Indonesia.",
    "lang_invalid": "Bahasa tidak dikenal. Gunakan `en` atau `id`.",
    "not_admin": "Hanya admin yang bisa melakukan itu.",
    # terminal
    "term_question": "Soal {n}/{total}",
    "term_prompt": "Jawabanmu ({letters}): ",
    "term_hint": "Ketik salah satu huruf {letters}.",
    "term_final": "Skor akhir: {correct} dari {answered} benar, {points} poin.",
    "term_leaderboard": "Papan skor lokal (sepanjang waktu)",
    "term_bye": "Sampai jumpa! Jalankan `zeroquiz play` lagi untuk soal berikutnya.",
    "term_no_questions": "Bank soal kosong.",
}
