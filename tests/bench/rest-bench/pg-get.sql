\set u random(0, 199)
\set i random(0, 49)
SELECT usr, item, created_at FROM likes WHERE usr = 'u' || :u::int AND item = 'i' || :i::int;
