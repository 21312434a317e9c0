-- PostgreSQL side of tests/bench/rest-bench.sh: the table a user would pick
-- instead of Actionbase, with the same 10k likes (u0..u199 x i0..i49).
CREATE TABLE likes (
  usr        text   NOT NULL,
  item       text   NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (usr, item)
);
CREATE INDEX likes_recent ON likes (usr, created_at DESC);
CREATE TABLE counters (
  key text PRIMARY KEY,
  n   bigint NOT NULL
);
INSERT INTO likes
  SELECT 'u' || (g / 50), 'i' || (g % 50), 1700000000000 + g
  FROM generate_series(0, 9999) AS g;
INSERT INTO counters SELECT 'out_' || usr, count(*) FROM likes GROUP BY usr;
INSERT INTO counters SELECT 'in_' || item, count(*) FROM likes GROUP BY item;
VACUUM ANALYZE;
