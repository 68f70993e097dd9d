-- +goose Up
-- The names of the languages a worker judges, with the versions its self-check detected
-- (id → name, e.g. {"pypy3": "PyPy 7.3.11"}): GET /api/v1/languages shows them, from the
-- live workers, since the API's host need not have the toolchains.
ALTER TABLE workers ADD COLUMN language_names jsonb NOT NULL DEFAULT '{}'::jsonb;

-- +goose Down
ALTER TABLE workers DROP COLUMN language_names;
