\set u random(0, 199)
SELECT item, created_at FROM likes WHERE usr = 'u' || :u::int ORDER BY created_at DESC LIMIT 25;
