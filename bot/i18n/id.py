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
    "button_invalid": "Tombol itu sudah tidak berlaku.",
    "feedback_points": "+{points} poin",
    "why": "Penjelasan",
    # reveal
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
        "Masih ada sesi yang berjalan di channel ini. Tunggu sampai selesai, atau akhiri dengan `/zeroquiz stop`."
    ),
    "run_count_invalid": "Pilih antara 1 dan {max} soal.",
    "no_open_round": "Tidak ada soal yang sedang terbuka di channel ini.",
    "round_closed_now": "Soal yang terbuka sudah ditutup.",
    "question_posted": "Soal sudah dikirim.",
    # topics and levels
    "topic_unknown": (
        "Tidak ada topik \u201c{word}\u201d. Topik: {topics}. "
        "Tingkat: mudah, sedang, sulit (atau 1, 2, 3)."
    ),
    "level_unknown": (
        "Tidak ada tingkat \u201c{word}\u201d. Tingkat: mudah, sedang, sulit (atau 1, 2, 3)."
    ),
    "filter_no_match": "Tidak ada soal dengan topik dan tingkat itu.",
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
    "stats_due_now": "Kartu ulasan jatuh tempo sekarang",
    "stats_due_week": "Kartu ulasan jatuh tempo minggu ini",
    # commands
    "help_title": "ZeroQuiz: belajar ZeRO dan sharded optimizer, satu soal demi satu soal",
    "help_cmd_question": "kirim satu soal sekarang, dengan topik dan tingkat bila disebut",
    "help_cmd_start": "sesi N soal berturut-turut, dengan topik dan tingkat bila disebut",
    "help_cmd_leaderboard": "papan skor tim",
    "help_cmd_stats": "jawaban, akurasi, dan streak kamu",
    "help_cmd_close": "tutup soal yang sedang terbuka",
    "help_cmd_lang": "bahasa channel ini",
    "help_cmd_daily": "soal harian; `daily` menampilkan jadwal, `daily off` menghentikannya",
    "help_cmd_help": "daftar ini",
    "help_admins": "(admin)",
    "help_footer": (
        "Klik huruf untuk menjawab: hanya kamu yang melihat benar atau salahnya, "
        "beserta alasannya. "
        "Jawaban pertama yang dihitung; jawaban benar bernilai 10 poin."
    ),
    "period_invalid": "Pilih periode: week, month, atau all.",
    "cannot_post": "Saya tidak bisa mengirim pesan di channel ini: {reason}",
    "post_later": "Layanan chat sedang tidak merespons. Pertanyaannya akan saya kirim begitu layanannya pulih.",
    # daily questions
    "daily_set": "Soal harian sudah dijadwalkan.",
    "daily_show": "Soal harian di sini pukul {time} ({tz}), {days}, terbuka {hours} jam.",
    "daily_next": "Berikutnya: {when} ({tz}).",
    "daily_none": "Channel ini belum punya soal harian. Atur dengan `/zeroquiz daily 09:00 Asia/Jakarta`.",
    "daily_off": "Soal harian untuk channel ini dihentikan.",
    "daily_usage": "Cara pakai: `/zeroquiz daily HH:MM Zona/Waktu [mon-fri|every day|mon,wed,fri] [topik] [8h]`.",
    "daily_bad_time": "'{value}' bukan jam yang valid: pakai format 24 jam HH:MM, misalnya 09:00.",
    "daily_bad_zone": "'{value}' bukan zona waktu yang dikenal: pakai nama seperti Asia/Jakarta atau UTC.",
    "daily_bad_days": "'{value}' bukan daftar hari: pakai mon-fri, every day, atau mon,wed,fri.",
    "daily_no_days": "Pilih setidaknya satu hari.",
    "daily_bad_window": "'{value}' bukan durasi yang valid: pakai jam atau menit antara 5m dan 23h, misalnya 8h.",
    "daily_unavailable": "Soal harian tidak tersedia di sini.",
    "days_weekdays": "Senin sampai Jumat",
    "days_every": "setiap hari",
    "day_names": "Sen,Sel,Rab,Kam,Jum,Sab,Min",
    "reveal_streaks": "🔥 Benar beberapa hari berturut-turut: {names}",
    # settings
    "lang_set": "Channel ini sekarang memakai Bahasa Indonesia.",
    "lang_invalid": "Bahasa tidak dikenal. Gunakan `en` atau `id`.",
    "not_admin": "Hanya admin yang bisa melakukan itu.",
    # slack
    "slack_answer_label": "Jawab {letter}",
    # the Slack Home tab
    "home_title": "ZeroQuiz",
    "home_new": "Kamu belum menjawab soal. Ketik `/zeroquiz question` di channel yang ada ZeroQuiz untuk mendapat soal; statistik, streak, dan peringkatmu akan muncul di sini.",
    "home_rank_title": "Peringkatmu minggu ini",
    "home_top_title": "10 besar minggu ini",
    "home_daily_title": "Soal harian (admin)",
    "home_daily_line": "{time} ({tz}), {days}",
    "home_daily_next": "berikutnya: {when} ({tz})",
    "home_daily_none": "Belum ada channel dengan soal harian. Atur dengan `/zeroquiz daily 09:00 Asia/Jakarta` di channel itu.",
    "home_refreshed": "Diperbarui setiap kali kamu membuka tab ini.",
    "slack_failed": "Terjadi kesalahan di sisi saya. Silakan coba lagi sebentar lagi.",
    "slack_err_not_in_channel": (
        "aplikasi belum ada di channel ini. Undang dengan `/invite @ZeroQuiz`, lalu coba lagi."
    ),
    "slack_err_channel_not_found": (
        "aplikasi tidak bisa melihat percakapan ini (channel privat yang belum mengundangnya?). "
        "Undang dengan `/invite @ZeroQuiz`, lalu coba lagi."
    ),
    "slack_err_is_archived": (
        "channel ini sudah diarsipkan. Batalkan arsipnya atau gunakan channel lain."
    ),
    "slack_err_restricted": (
        "mengirim pesan di sini dibatasi (misalnya channel khusus pengumuman). "
        "Tanyakan admin workspace, atau gunakan channel lain."
    ),
    "slack_err_missing_scope": (
        "aplikasi kekurangan izin. Minta admin memasang ulang dari deploy/slack-manifest.yaml."
    ),
    "slack_err_auth": "token aplikasi ditolak. Minta admin memeriksa SLACK_BOT_TOKEN.",
    "slack_err_busy": "Slack sedang membatasi laju aplikasi. Coba lagi sebentar lagi.",
    "slack_err_unreachable": "Slack tidak bisa dihubungi. Coba lagi sebentar lagi.",
    "slack_err_other": "Slack menjawab `{error}`. Coba lagi, atau minta admin memeriksa log.",
    # discord
    "discord_cmd_group": "ZeroQuiz: belajar ZeRO dan optimizer ter-shard",
    "discord_cmd_question": "Kirim satu soal di channel ini sekarang",
    "discord_cmd_start": "Mulai rangkaian beberapa soal berturut-turut",
    "discord_opt_count": "Berapa banyak soal",
    "discord_opt_topic": "Hanya soal dengan topik ini",
    "discord_opt_level": "Hanya soal dengan tingkat kesulitan ini",
    "discord_choice_easy": "mudah",
    "discord_choice_medium": "sedang",
    "discord_choice_hard": "sulit",
    "discord_cmd_leaderboard": "Tampilkan papan skor tim",
    "discord_opt_period": "Periode yang diperingkat",
    "discord_cmd_stats": "Jawaban, akurasi, dan streak milikmu",
    "discord_cmd_help": "Cara kerja ZeroQuiz",
    "discord_cmd_close": "Tutup soal yang sedang terbuka sekarang (Kelola Server)",
    "discord_cmd_lang": "Atur bahasa channel ini (Kelola Server)",
    "discord_opt_lang": "Bahasa untuk channel ini",
    "discord_choice_en": "English",
    "discord_choice_id": "Bahasa Indonesia",
    "discord_cmd_daily": "Kirim satu soal setiap hari (Kelola Server)",
    "discord_opt_time": "Jam, format HH:MM",
    "discord_opt_timezone": "Zona waktu, misalnya Asia/Jakarta",
    "discord_opt_days": "Hari, misalnya mon-fri atau daily",
    "discord_opt_window": "Berapa jam setiap soal harian tetap terbuka",
    "discord_opt_off": "Matikan soal harian",
    "discord_missing_permission": (
        "Saya tidak bisa melakukannya di sini: saya butuh izin {permission} di channel ini."
    ),
    "discord_perm_view_channel": "Lihat Saluran",
    "discord_perm_send_messages": "Kirim Pesan",
    "discord_perm_send_messages_in_threads": "Kirim Pesan di Utas",
    "discord_perm_embed_links": "Sematkan Tautan",
    "discord_failed": "Terjadi kesalahan di sisi saya. Silakan coba lagi sebentar lagi.",
    "discord_command_mismatch": "Perintah itu tidak cocok dengan /zeroquiz bot ini: Discord mungkin masih menampilkan versi lama. Coba lagi sebentar lagi, atau lihat `/zeroquiz help`.",
    # terminal
    "term_question": "Soal {n}/{total}",
    "term_prompt": "Jawabanmu ({letters}): ",
    "term_hint": "Ketik salah satu huruf {letters}, atau perintah seperti /help.",
    "term_final": "Skor akhir: {correct} dari {answered} benar, {points} poin.",
    "term_leaderboard": "Papan skor lokal (sepanjang waktu)",
    "term_bye": "Sampai jumpa! Jalankan `zeroquiz play` lagi untuk soal berikutnya.",
    "term_no_questions": "Bank soal kosong.",
    # review flow (issue 11 item 1: the personal review)
    "review_title": "ZeroQuiz · Ulasan",
    "review_due": "Kartu yang perlu diulas: {count}. Hanya kamu yang melihat ini.",
    "review_left": "Masih jatuh tempo: {count}.",
    "review_none": "Tidak ada yang perlu diulas sekarang.",
    "review_done": "Itu kartu terakhir yang jatuh tempo. Bagus!",
    "review_next_due": "Kartu berikutnya jatuh tempo {when}.",
    "review_already": "(Sudah diulas: jadwalnya tidak berubah.)",
    "review_next": "Berikutnya",
    "review_stop": "Berhenti",
    "review_stopped": "Ulasan dihentikan. Kembali dengan `/zeroquiz review` saat ada kartu jatuh tempo.",
    "help_cmd_review": "ulas kartu jatuh tempo milikmu secara pribadi, dengan topik dan tingkat bila diberikan",
    "discord_cmd_review": "Ulas kartu jatuh tempo milikmu secara pribadi",
    "home_review_button": "Ulas sekarang",
    "term_review_prompt": "Jawabanmu ({letters}), atau q untuk berhenti: ",
    # stop, run filters kept, daily topics (issue 11: `/zeroquiz stop`, daily topics)
    "help_cmd_stop": "akhiri sesi di channel ini sekarang: soal yang terbuka diungkap dan klasemen ditampilkan (yang memulai sesi, atau admin)",
    "discord_cmd_stop": "Akhiri sesi di channel ini sekarang (yang memulainya, atau Manage Server)",
    "run_stopped": "Sesi dihentikan: soal yang terbuka diungkap dan klasemen sejauh ini diumumkan.",
    "stop_no_run": "Tidak ada sesi yang sedang berjalan di channel ini.",
    "stop_not_allowed": "Hanya orang yang memulai sesi ini, atau admin, yang bisa menghentikannya.",
    "daily_topics": "Soal tentang: {topics}.",
    "daily_topics_hint": "Kata setelah hari juga bisa berupa topik: {topics}.",
    # batas (bot/limits.py): setiap penolakan tidak mengubah apa pun
    "limit_question_open": "Masih ada soal yang terbuka di channel ini: jawab yang itu dulu. Soalnya ditutup sekitar {minutes} menit lagi.",
    "limit_person_rate": "Perintahmu datang lebih cepat daripada yang bisa saya terima. Coba lagi dalam {seconds} detik.",
    "limit_team_rate": "Workspace ini mengirim lebih banyak perintah daripada yang bisa saya terima sekaligus. Coba lagi dalam {seconds} detik.",
    "limit_team_rounds": "Workspace ini sudah punya {limit} soal yang terbuka, batas terbanyak sekaligus. Coba lagi setelah salah satunya ditutup.",
    "limit_daily_schedules": "Workspace ini sudah punya {limit} soal harian, batas terbanyaknya. Matikan salah satunya dulu (`/zeroquiz daily off` di channel-nya).",
    "command_repeated": "Perintah itu sudah dijalankan.",
    "button_not_mine": "Tombol itu bukan milik saya: tombol itu milik aplikasi lain, jadi ZeroQuiz tidak bisa menjalankannya.",
}
