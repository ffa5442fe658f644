# Names vulture (dead-code finder, run by .ci/run) cannot see being used: framework callbacks
# (FastAPI routes and handlers, Alembic's revision variables, pytest hooks, http.server and
# Typer callbacks, Rich table captions), context-manager arguments and public API kept for
# users. Anything else it reports is dead code: delete it rather than list it here.
_.set_ok  # benchmarks/bench_server.py: an http.cookiejar policy callback
_.return_ok  # benchmarks/bench_server.py: an http.cookiejar policy callback
_root  # src/ginrummy/cli/__init__.py: the Typer callback
_.caption  # src/ginrummy/cli/arena.py: a Rich table's caption
_.stderr_tail  # src/ginrummy/engine/host.py: what a failed engine last wrote, for people debugging one
exc_type  # src/ginrummy/engine/host.py: __exit__ arguments
tb  # src/ginrummy/engine/host.py: __exit__ arguments
_.sorted_by_rank  # src/ginrummy/rules/cards.py: CardSet's public API
_.http_limiter  # src/ginrummy/server/app.py: app state read by the routes
_service_error  # src/ginrummy/server/app.py: FastAPI exception handlers
_validation_error
_http_error
get_me  # src/ginrummy/server/app.py: FastAPI routes
post_me
post_matches
get_matches
post_rooms
get_room
get_replay
post_rematch
post_analysis
get_analysis
login  # src/ginrummy/server/compete.py: FastAPI routes
logout
logout_everywhere
player_by_name
leaderboard
leaderboards_summary
join_pool
wait_pool
leave_pool
pool_robot
list_tournaments
create_tournament
get_tournament
tournament_verb
my_bots  # src/ginrummy/server/botapi.py: FastAPI routes
online_bots
new_token
revoke_token
get_challenge
cancel_challenge
bot_account
bot_games
bot_accept
bot_decline
_.empty  # src/ginrummy/service/ports.py: part of the storage port
down_revision  # src/ginrummy/storage/migrations: Alembic reads these
branch_labels
depends_on
_pragmas  # src/ginrummy/storage/sql/engine.py: an SQLAlchemy event listener
pytest_collection_modifyitems  # tests/conftest.py: pytest hooks
local_ray  # tests/arena/test_arena_ray.py: a pytest fixture the tests name in usefixtures
pytest_runtest_logreport
pytest_terminal_summary
pytest_sessionfinish
_.__test__  # tests/server/server_helpers.py: tells pytest a class is no test
_.should_exit  # tests/server/server_helpers.py: Uvicorn's stop flag
pytestmark  # tests/server/test_browser.py: pytest marks
_.do_GET  # tests/test_infra.py: http.server callbacks
_.log_message
engine_check  # src/ginrummy/cli/engine_check_cmd.py: a Typer command
_.hand_over  # src/ginrummy/server/app.py: app state read by `ginrummy serve` (cli/serve_cmd.py) on SIGTERM
cluster_programs  # tests/conftest.py: a pytest fixture, used by name (usefixtures)
_.autocommit  # src/ginrummy/storage/sql/event_writes.py: psycopg's connection mode, set around one statement
