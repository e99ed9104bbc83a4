#!/bin/sh
# The checks of the real-kernel tier, run inside the QEMU guest by /init:
#   checks.sh all | CHECK[,CHECK...]   (replay, device-lost, two-panels, filter, dump, metrics, flood, record,
#                                       latency, latency-costs, filter-flood, filter-latency,
#                                       filter-latency-rules, panel-health;
#                                       boot, which loads the modules, always runs)
# Prints one `KERNELTEST PASS|FAIL name ...` line per check, `KERNELTEST INFO`
# lines with details (the logs of what failed), and a final
# `KERNELTEST DONE passed=N failed=M`. Only busybox, transitiond and kt (the
# static C helper, Tests/kernel/kt.c) exist here.
#
# Files (made by Tests/kernel/run.sh on the host):
#   /recordings/*.events     the project's Recordings/
#   /refs/NAME.ndjson        `transitiond replay --fast --json --config example.toml` of each, on the host
#   /data/stream.events      a steady 240 events/s stream (bench/make-stream-recording.py), for latency
#   /data/flood.events       a longer one of the same, for the flood
#   /data/filter-mix.events  touches for the UI and one for `back` (Tests/kernel/make-filter-recording.py)
#   /data/health.events      a finger moving at 120 frames/s, then at 25 (Tests/kernel/make-health-recording.py)
#   /config/example.toml     config/example.toml
set -u
export PATH=/bin:/usr/bin
checks="${1:-all}"
SOCK=/tmp/t.sock
CONFIG=/config/example.toml
passed=0
failed=0

pass() { echo "KERNELTEST PASS $*"; passed=$((passed + 1)); }
fail() { echo "KERNELTEST FAIL $*"; failed=$((failed + 1)); }
info() { echo "KERNELTEST INFO $*"; }
# show LABEL FILE [LINES]: the end of a log, as INFO lines.
show() {
  [ -s "$2" ] || { info "  $1: (empty)"; return 0; }
  tail -n "${3:-12}" "$2" | cut -c1-300 | while IFS= read -r line; do info "  $1: $line"; done
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(uptime_s)" 'BEGIN { printf "%.1f s", b - a }'; }
wanted() { [ "$checks" = all ] || case ",$checks," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

# ------------------------------------------------------------ processes

daemon_pid=""
sub_pid=""
player_pid=""
device=""

# start_daemon_with CONFIG DEVICE DIR [ARGS...]: `transitiond run --config
# CONFIG --device DEVICE ARGS` on $SOCK, its log in DIR/daemon.log; waits
# for the socket. With no touchscreen yet, the daemon waits for one and
# attaches when a uinput device appears. start_daemon DIR [ARGS...]: the
# same with $CONFIG and --device auto.
start_daemon() { start_daemon_with "$CONFIG" auto "$@"; }
start_daemon_with() {
  rm -f "$SOCK"
  sd_config="$1"; sd_device="$2"; shift 2
  sd_dir="$1"; shift
  timeout -s KILL 200 transitiond run --device "$sd_device" --socket "$SOCK" --config "$sd_config" "$@" \
    > "$sd_dir/daemon.out" 2> "$sd_dir/daemon.log" &
  daemon_pid=$!
  i=0
  while [ ! -S "$SOCK" ]; do
    i=$((i + 1))
    if [ "$i" -gt 500 ] || ! kill -0 "$daemon_pid" 2>/dev/null; then
      info "the daemon did not create its socket"
      show daemon "$sd_dir/daemon.log"
      return 1
    fi
    usleep 20000
  done
}

# start_subscriber OUT: `transitiond subscribe --json` into OUT; waits for hello.
start_subscriber() {
  timeout -s KILL 200 transitiond subscribe --socket "$SOCK" --json > "$1" 2> "$1.err" &
  sub_pid=$!
  if ! kt wait "$1" '"type":"hello"' 20; then
    info "the subscriber got no hello"
    show subscribe "$1.err"
    return 1
  fi
}

# player_start DIR RECORDING ARGS...: `transitiond uinput-replay RECORDING
# ARGS --wait-stdin` in the background (player_pid), its output in
# DIR/player.log. It creates the device (its node in $device) and waits for
# player_go before the first event, so that the reader under test has
# opened the device first.
player_start() {
  pd="$1"; shift
  rm -f "$pd/go"
  mkfifo "$pd/go"
  exec 3<> "$pd/go"
  timeout -s KILL 150 transitiond uinput-replay "$@" --wait-stdin <&3 > "$pd/player.log" 2>&1 &
  player_pid=$!
  device=""
  if ! kt wait "$pd/player.log" 'device /dev/input/event' 20; then
    info "uinput-replay printed no device line"
    show uinput-replay "$pd/player.log"
    return 1
  fi
  device=$(sed -n 's/^device \(\/dev\/input\/event[0-9]*\).*/\1/p' "$pd/player.log" | head -n 1)
}
player_go() { echo go >&3; exec 3>&-; }
# player_wait: waits for uinput-replay to exit; its exit status.
player_wait() {
  s=0
  wait "$player_pid" || s=$?
  player_pid=""
  return "$s"
}

# wait_attached LOG N: waits until the daemon has logged its N-th attach.
wait_attached() {
  kt wait "$1" 'attached /dev/input/event' 20 "$2" && return 0
  info "the daemon did not attach to the uinput device ($2)"
  return 1
}

# stop PID: SIGTERM, then SIGKILL after 5 s.
stop() {
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || return 0
  i=0
  while kill -0 "$1" 2>/dev/null && [ "$i" -lt 250 ]; do usleep 20000; i=$((i + 1)); done
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null
  return 0
}

stop_all() {
  exec 3>&-
  stop "$player_pid"; player_pid=""
  stop "$sub_pid"; sub_pid=""
  stop "$daemon_pid"; daemon_pid=""
}

# settle OUT SECONDS: waits until every transition in OUT has come to rest
# (kt lifecycle exits 0), at most SECONDS.
settle() {
  end=$(($(cut -d. -f1 /proc/uptime) + $2))
  until kt lifecycle "$1" > /dev/null; do
    [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || return 1
    usleep 50000
  done
}

# ------------------------------------------------------------------ boot

check_boot() {
  # One boot line per guest: `boot` in the guest on the virtual clock,
  # `boot:real-time` in the one on the host's clock.
  boot=boot
  [ "${KT_CLOCK:-real}" = virtual ] || boot=boot:real-time
  ok=1
  for m in evdev uinput; do
    if ! insmod "/lib/modules/$m.ko" 2> /tmp/insmod.err; then
      grep -q 'File exists' /tmp/insmod.err || { ok=0; fail "$boot" "insmod $m: $(cat /tmp/insmod.err)"; }
    fi
  done
  [ "$ok" = 1 ] || return 0
  [ -c /dev/uinput ] || { fail "$boot" "no /dev/uinput after insmod uinput"; return 0; }
  mkdir -p /tmp/boot
  # The binary and its shared libraries work here: a replay on the virtual
  # clock gives the host's output byte for byte.
  if ! timeout -s KILL 60 transitiond replay --fast --json --config "$CONFIG" \
      /recordings/back-drag-finish.events > /tmp/boot/replay.ndjson 2> /tmp/boot/replay.err; then
    fail "$boot" "transitiond replay --fast does not run in the guest"
    show replay /tmp/boot/replay.err
    return 0
  fi
  if ! cmp -s /tmp/boot/replay.ndjson /refs/back-drag-finish.ndjson; then
    fail "$boot" "replay --fast in the guest differs from the host's"
    return 0
  fi
  pass "$boot" "evdev and uinput loaded, /dev/uinput present; replay --fast in the guest equals the host's (kernel $(uname -r), $KT_CLOCK clock)"
}

# ---------------------------------------------------------------- replay

# a. Each recording through uinput into `transitiond run`, at real speed:
# the subscriber's stream equals the host's `replay --fast` (kt compare).
check_replay() {
  for rec in /recordings/*.events; do
    name=$(basename "$rec" .events)
    d="/tmp/replay-$name"
    mkdir -p "$d"
    t0=$(uptime_s)
    if ! start_daemon "$d" || ! start_subscriber "$d/out.ndjson" \
        || ! player_start "$d" "$rec" --speed 1 --hold-seconds 0.3 || ! wait_attached "$d/daemon.log" 1; then
      fail "replay:$name" "could not start the daemon, a subscriber and uinput-replay"
      show daemon "$d/daemon.log"; stop_all; continue
    fi
    player_go
    if ! player_wait; then
      fail "replay:$name" "uinput-replay failed"
      show uinput-replay "$d/player.log"; show daemon "$d/daemon.log"
      stop_all; continue
    fi
    settle "$d/out.ndjson" 10
    stop_all
    if kt compare "/refs/$name.ndjson" "$d/out.ndjson" > "$d/compare.txt"; then
      pass "replay:$name" "$(cat "$d/compare.txt") ($(since "$t0"))"
    else
      fail "replay:$name" "$(head -n 1 "$d/compare.txt")"
      show compare "$d/compare.txt"; show uinput-replay "$d/player.log"; show daemon "$d/daemon.log"
      kt lifecycle "$d/out.ndjson" > "$d/life.txt"; show live "$d/life.txt"
    fi
  done
}

# ----------------------------------------------------------- device-lost

# b. The device goes away mid-gesture: ended(cancel, device-lost) then
# cancelled; the daemon keeps running; a device with the same description
# comes back and the next gesture works.
check_device_lost() {
  d=/tmp/lost
  mkdir -p "$d"
  t0=$(uptime_s)
  rec=/recordings/back-drag-finish.events
  # 400 events in, the finger has pulled `back` to about 0.1 (it began at
  # event ~170) and is still down.
  if ! start_daemon "$d" || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" "$rec" --speed 1 --destroy-after-events 400 || ! wait_attached "$d/daemon.log" 1; then
    fail device-lost "could not start the daemon, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  player_go
  player_wait
  cp "$d/player.log" "$d/first.log"
  if ! kt wait "$d/out.ndjson" '"reason":"device-lost"' 10 || ! kt wait "$d/out.ndjson" '"type":"cancelled"' 10; then
    fail device-lost "no ended(cancel, device-lost) and cancelled after the device was destroyed"
    show uinput-replay "$d/first.log"; show daemon "$d/daemon.log"; show stream "$d/out.ndjson" 4
    stop_all; return 0
  fi
  if ! kill -0 "$daemon_pid" 2>/dev/null; then
    fail device-lost "the daemon exited when the device went away"; show daemon "$d/daemon.log"
    stop_all; return 0
  fi
  # The same description again: the daemon re-attaches; a whole gesture.
  if ! player_start "$d" "$rec" --speed 1 --hold-seconds 0.3 || ! wait_attached "$d/daemon.log" 2; then
    fail device-lost "the daemon did not re-attach to a new device"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  player_go
  player_wait
  settle "$d/out.ndjson" 10
  alive=yes; kill -0 "$daemon_pid" 2>/dev/null || alive=no
  stop_all
  kt lifecycle "$d/out.ndjson" > "$d/life.txt"
  expected="back: began ended(cancel,device-lost) cancelled began ended(finish,released) finished"
  if [ "$(cat "$d/life.txt")" = "$expected" ] && [ "$alive" = yes ]; then
    pass device-lost "$(cat "$d/life.txt"); $(grep -m1 'lost /dev/input' "$d/daemon.log" | sed 's/.*\(lost \/dev\)/\1/' | cut -c1-120) ($(since "$t0"))"
  else
    fail device-lost "expected '$expected', daemon alive: $alive"
    show live "$d/life.txt"; show uinput-replay "$d/player.log"; show daemon "$d/daemon.log"
  fi
}

# ------------------------------------------------------------ two-panels

# second_start DIR RECORDING ARGS...: a second uinput-replay (second_pid),
# its output in DIR/second.log, waiting for second_go on its own fifo.
second_pid=""
second_start() {
  sd="$1"; shift
  rm -f "$sd/go2"
  mkfifo "$sd/go2"
  exec 4<> "$sd/go2"
  timeout -s KILL 150 transitiond uinput-replay "$@" --wait-stdin <&4 > "$sd/second.log" 2>&1 &
  second_pid=$!
  kt wait "$sd/second.log" 'device /dev/input/event' 20
}
second_go() { echo go >&4; exec 4>&-; }

# f. Two touchscreens at once (`--device all`): a left-edge drag on one and
# a right-edge drag on the other, at the same time, each its own gesture;
# the first panel is destroyed mid-gesture: only `back` is cancelled
# (device-lost), `forward` on the other panel finishes as the host's replay
# of its recording does.
check_two_panels() {
  d=/tmp/two
  mkdir -p "$d"
  t0=$(uptime_s)
  if ! start_daemon_with "$CONFIG" all "$d" || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /recordings/back-drag-finish.events --speed 1 --destroy-after-events 400 \
      || ! second_start "$d" /recordings/forward-edge-right-spring.events --speed 1 --hold-seconds 0.5 --name "Second Panel" \
      || ! wait_attached "$d/daemon.log" 2; then
    fail two-panels "could not start the daemon, a subscriber and two uinput-replays"
    show daemon "$d/daemon.log"; stop "$second_pid"; second_pid=""; stop_all; return 0
  fi
  player_go
  second_go
  player_wait
  wait "$second_pid"; second_pid=""
  settle "$d/out.ndjson" 10
  alive=yes; kill -0 "$daemon_pid" 2>/dev/null || alive=no
  stop_all
  kt lifecycle "$d/out.ndjson" > "$d/life.txt"
  grep '"type":"hello"' "$d/out.ndjson" | head -n 1 > "$d/hello.txt"
  expected_back="back: began ended(cancel,device-lost) cancelled"
  expected_forward="forward: began ended(finish,released) finished"
  attached=$(grep -c 'attached /dev/input/event' "$d/daemon.log")
  if grep -qx "$expected_back" "$d/life.txt" && grep -qx "$expected_forward" "$d/life.txt" \
      && [ "$(wc -l < "$d/life.txt")" -eq 2 ] && [ "$alive" = yes ] && [ "$attached" -ge 2 ]; then
    pass two-panels "$(tr '\n' ';' < "$d/life.txt") $attached panels attached with --device all; $(grep -m1 'lost /dev/input' "$d/daemon.log" | sed 's/.*\(lost \/dev\)/\1/' | cut -c1-100) ($(since "$t0"))"
  else
    fail two-panels "expected '$expected_back' and '$expected_forward' only, daemon alive: $alive, panels attached: $attached"
    show live "$d/life.txt"; show daemon "$d/daemon.log"; show second "$d/second.log"; show uinput-replay "$d/player.log"
    grep '"type":"ended"' "$d/out.ndjson" > "$d/ended.txt"; show ended "$d/ended.txt"
  fi
}

# ---------------------------------------------------------------- dump

# j. The flight recorder: two gestures through uinput into `transitiond
# run`, then `transitiond dump`; `replay --fast` of the dump gives the same
# transitions as the live stream (kt compare: lifecycles, progress values,
# release velocities within 10 %).
# The flight recorder, asked (`transitiond dump`) and by itself: the config
# keeps misfires ([input] keep_misfires) and names the kiosk ([identity]);
# the recording's flick back after passing the threshold is a late cancel,
# which must leave exactly one dump in the spool, with the kiosk in its
# header, replaying to the stream the daemon sent.
check_dump() {
  d=/tmp/dump
  mkdir -p "$d"
  t0=$(uptime_s)
  cfg="$d/misfires.toml"
  awk -v spool="$d/spool" '{ print }
    /^\[input\]$/ { print "keep_misfires = true"; print "misfire_spool = \"" spool "\"" }
    /^\[identity\]$/ { print "kiosk = \"kernel-guest\"" }' "$CONFIG" > "$cfg"
  if ! start_daemon_with "$cfg" auto "$d" || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /recordings/back-flick-back-cancel.events --speed 1 --hold-seconds 2 \
      || ! wait_attached "$d/daemon.log" 1; then
    fail dump "could not start the daemon, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  player_go
  kt wait "$d/player.log" 'written ' 30
  settle "$d/out.ndjson" 10
  transitiond dump --socket "$SOCK" -o "$d/dump.events" 2> "$d/dump.log"
  status=$?
  player_wait
  # The spool is written off the daemon's loop: its log says when.
  kt wait "$d/daemon.log" 'kept in ' 20
  stop_all
  check_misfire "$d" "$cfg"
  if [ "$status" != 0 ]; then
    fail dump "transitiond dump exited $status"; show dump "$d/dump.log"; show daemon "$d/daemon.log"; return 0
  fi
  transitiond replay --fast --json --config "$cfg" "$d/dump.events" > "$d/replayed.ndjson" 2> "$d/replay.err"
  if kt compare "$d/out.ndjson" "$d/replayed.ndjson" > "$d/compare.txt"; then
    pass dump "$(cat "$d/dump.log" | sed 's/^transitiond: //'); replay --fast of the dump against the live stream: $(cat "$d/compare.txt") ($(since "$t0"))"
  else
    fail dump "$(head -n 1 "$d/compare.txt")"
    show compare "$d/compare.txt"; show dump "$d/dump.log"; show replay "$d/replay.err"; head -n 12 "$d/dump.events" > "$d/head.txt"; show head "$d/head.txt"
  fi
}

# check_misfire DIR CONFIG: the spool of check_dump's run.
check_misfire() {
  spooled=$(ls "$1/spool" 2>/dev/null | grep -c '^[0-9]\{8\}T[0-9]\{6\}Z-late-cancel-back\.events$')
  all=$(ls -A "$1/spool" 2>/dev/null | wc -l)
  if [ "$spooled" != 1 ] || [ "$all" != 1 ]; then
    fail misfires "the spool holds $all files, $spooled of them a late cancel of back (1 and 1 wanted)"
    ls -la "$1/spool" > "$1/spool.txt" 2>&1; show spool "$1/spool.txt"; show daemon "$1/daemon.log"; return 0
  fi
  file="$1/spool/$(ls "$1/spool")"
  header=$(head -n 3 "$file" | tail -n 2 | tr '\n' '|')
  case "$header" in
    "# transitiond misfire: version="*" kiosk=kernel-guest config_hash="*"|# misfire: kind=late-cancel transition=back decision=cancel reason=released progress="*" panel=/dev/input/event"*) ;;
    *) fail misfires "its header: $header"; return 0 ;;
  esac
  transitiond replay --fast --json --config "$2" "$file" > "$1/spooled.ndjson" 2> "$1/spooled.err"
  if kt compare "$1/out.ndjson" "$1/spooled.ndjson" > "$1/spooled.txt"; then
    pass misfires "one dump in the spool, $(wc -c < "$file") bytes, its header naming the kiosk and the late cancel; its replay against the live stream: $(cat "$1/spooled.txt")"
  else
    fail misfires "$(head -n 1 "$1/spooled.txt")"; show compare "$1/spooled.txt"; show replay "$1/spooled.err"
  fi
}

# ---------------------------------------------------------------- filter

# g. Filter mode (`--mode filter`, the embedded config's `back`): a reader
# of the panel's uinput copy (`transitiond record`, libevdev) over four
# rounds, its recording checked by `kt mtcheck` (well-formed multitouch
# throughout, every touch ended):
#   1. filter-mix.events: the drags A and D and the edge tap C reach the
#      copy, B (which `back` claims) does not; C keeps its 40 ms;
#   2. the same, the panel destroyed in the middle of A: A ends on the copy,
#      which stays;
#   3. `back` disabled over the socket: a left-edge flick reaches the copy
#      and the stream has no event;
#   4. enabled again: the same flick is `back` and the copy gets nothing.
check_filter() {
  d=/tmp/filter
  mkdir -p "$d"
  t0=$(uptime_s)
  if ! start_daemon "$d" --mode filter || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /data/filter-mix.events --speed 1 --hold-seconds 0.3 || ! wait_attached "$d/daemon.log" 1 \
      || ! kt wait "$d/daemon.log" 'filter: the touches of' 10; then
    fail filter "could not start the daemon in filter mode, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  copy=$(sed -n 's/.*go to \(\/dev\/input\/event[0-9]*\).*/\1/p' "$d/daemon.log" | head -n 1)
  timeout -s KILL 100 transitiond record --device "$copy" -o "$d/copy.events" 2> "$d/record.log" &
  recorder=$!
  if [ -z "$copy" ] || ! kt wait "$d/record.log" 'recording ' 20; then
    fail filter "no copy of the panel to record (copy '$copy')"
    show daemon "$d/daemon.log"; show record "$d/record.log"; stop "$recorder"; stop_all; return 0
  fi
  # 1. the mix
  player_go
  player_wait
  settle "$d/out.ndjson" 10
  # 2. destroyed in the middle of A (its 60th event, 0.2 s in; events written
  # just before a device goes are lost to its readers, so not sooner)
  player_start "$d" /data/filter-mix.events --speed 1 --destroy-after-events 60 && wait_attached "$d/daemon.log" 2
  player_go
  player_wait
  kt wait "$d/daemon.log" 'lost /dev/input' 10
  # 3. back disabled: the flick is the UI's
  kt send "$SOCK" '{"cmd":"enable","transition":"back","enabled":false}' > "$d/disable.txt"
  player_start "$d" /recordings/back-flick-finish.events --speed 1 --hold-seconds 0.3 && wait_attached "$d/daemon.log" 3
  player_go
  player_wait
  events_disabled=$(grep -c '"type":"began"' "$d/out.ndjson")
  # 4. enabled again: the flick is back's
  kt send "$SOCK" '{"cmd":"enable","transition":"back","enabled":true}' > "$d/enable.txt"
  player_start "$d" /recordings/back-flick-finish.events --speed 1 --hold-seconds 0.3 && wait_attached "$d/daemon.log" 4
  player_go
  player_wait
  settle "$d/out.ndjson" 10
  usleep 300000
  kill -INT "$recorder" 2>/dev/null
  wait "$recorder"
  alive=yes; kill -0 "$daemon_pid" 2>/dev/null || alive=no
  stop_all
  # The copy is the panel but for its name, and it goes with the daemon.
  grep '^[ABP]:' /data/filter-mix.events > "$d/panel-bits.txt"
  grep '^[ABP]:' "$d/copy.events" > "$d/copy-bits.txt"
  same_axes=yes; cmp -s "$d/panel-bits.txt" "$d/copy-bits.txt" || same_axes=no
  copy_name=$(sed -n 's/^N: //p' "$d/copy.events")
  copies_left=$(cat /sys/class/input/event*/device/name 2>/dev/null | grep -c '(transitiond filter)')
  kt lifecycle "$d/out.ndjson" > "$d/life.txt"
  kt mtcheck "$d/copy.events" > "$d/mt.txt"
  mt=$?
  # The copy's touches by where they began (raw units of the 4095 x 2303 panel).
  touches=$(sed -n 's/^touch [0-9]*: x0=\([0-9]*\) y0=\([0-9]*\).*/\1,\2/p' "$d/mt.txt" | tr '\n' ' ')
  tap=$(sed -n 's/^touch 2: x0=41 y0=691 t0=[0-9.]* dur=\([0-9.]*\)$/\1/p' "$d/mt.txt")
  tap_ok=$(awk -v d="${tap:-0}" 'BEGIN { print (d > 0.030 && d < 0.050) ? "yes" : "no" }')
  expected_touches="1638,1152 41,691 1228,1842 1638,1152 $(sed -n 's/^touch 5: x0=\([0-9]*\) y0=\([0-9]*\).*/\1,\2/p' "$d/mt.txt") "
  expected_life="back: began ended(finish,released) finished began ended(finish,released) finished"
  if [ "$mt" = 0 ] && grep -q '^touches=5 open=0 errors=0$' "$d/mt.txt" && [ "$touches" = "$expected_touches" ] \
      && [ "$(sed -n 's/^touch 5: x0=\([0-9]*\).*/\1/p' "$d/mt.txt")" -lt 200 ] && [ "$tap_ok" = yes ] \
      && [ "$(cat "$d/life.txt")" = "$expected_life" ] && [ "$events_disabled" = 1 ] \
      && grep -q '"type":"ok"' "$d/disable.txt" && [ "$alive" = yes ] && [ "$same_axes" = yes ] \
      && [ "$copy_name" = "transitiond synthetic 10-point panel (transitiond filter)" ] && [ "$copies_left" = 0 ]; then
    pass filter "copy $copy \"$copy_name\" (axes, ranges, resolution, properties and codes as the panel's; gone after the daemon stopped): $(tail -n 1 "$d/mt.txt") (A, C, D, A cut by the panel's removal, the flick while back was off; never B or the flick for back); edge tap held and given with ${tap} s down (40 ms recorded); $(cat "$d/life.txt") ($(since "$t0"))"
  else
    fail filter "mtcheck $mt, touches '$touches' (expected '$expected_touches'), edge tap ${tap:-?} s, began while disabled: $events_disabled (1 expected: B), daemon alive: $alive, same axes: $same_axes, copy '$copy_name', copies left after stop: $copies_left"
    diff "$d/panel-bits.txt" "$d/copy-bits.txt" > "$d/bits.diff"; show bits "$d/bits.diff"
    show mtcheck "$d/mt.txt" 20; show live "$d/life.txt"; show disable "$d/disable.txt"; show daemon "$d/daemon.log" 20
    show record "$d/record.log"
  fi
}

# ------------------------------------------------------------- filter-flood

# i. Filter mode when the kernel drops events: the flood (left-edge drags,
# written as fast as possible) with `back` on the right edge, so every drag
# is the UI's: the daemon resyncs after SYN_DROPPED, and the copy, read live
# by `kt mtwatch` (which takes the state by ioctl where it falls behind
# itself), is well-formed multitouch with every touch ended, and has drags.
# How many drags survive depends on how long the daemon's reader is kept
# from the CPU: a drag that begins and ends inside what the kernel dropped
# is gone for everyone (a busy host left 2 of them, an idle one most), so
# the check asks for one, not a count.
check_filter_flood() {
  d=/tmp/filter-flood
  mkdir -p "$d"
  t0=$(uptime_s)
  printf '[[transition]]\nname = "forward"\ngesture = "edge-pan"\nedge = "right"\n' > "$d/right.toml"
  if ! start_daemon_with "$d/right.toml" auto "$d" --mode filter || ! player_start "$d" /data/flood.events --speed 0 --hold-seconds 2 \
      || ! wait_attached "$d/daemon.log" 1 || ! kt wait "$d/daemon.log" 'filter: the touches of' 10; then
    fail filter-flood "could not start the daemon in filter mode and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  copy=$(sed -n 's/.*go to \(\/dev\/input\/event[0-9]*\).*/\1/p' "$d/daemon.log" | head -n 1)
  timeout -s KILL 100 kt mtwatch "$copy" > "$d/mt.txt" 2> "$d/watch.log" &
  watcher=$!
  kt wait "$d/watch.log" 'watching ' 20
  player_go
  how="by itself"
  if ! kt wait "$d/daemon.log" SYN_DROPPED 0.5; then
    kill -STOP "$daemon_pid"
    usleep 300000
    kill -CONT "$daemon_pid"
    how="after a 0.3 s SIGSTOP of the daemon"
  fi
  kt wait "$d/player.log" 'written ' 60
  player_wait
  kt wait "$d/daemon.log" 'lost /dev/input' 10
  usleep 300000
  kill -INT "$watcher" 2>/dev/null
  mt=0
  wait "$watcher" || mt=$?
  alive=yes; kill -0 "$daemon_pid" 2>/dev/null || alive=no
  stop_all
  resyncs=$(grep -c 'SYN_DROPPED' "$d/daemon.log")
  copied=$(sed -n 's/^touches=\([0-9]*\).*/\1/p' "$d/mt.txt")
  if [ "$mt" = 0 ] && [ "$resyncs" -gt 0 ] && [ "$alive" = yes ] && grep -q 'open=0 errors=0' "$d/mt.txt" \
      && [ "${copied:-0}" -ge 1 ]; then
    pass filter-flood "overrun $how, $resyncs resync(s) of the panel; the copy: $(tail -n 1 "$d/mt.txt") ($(since "$t0"))"
  else
    fail filter-flood "mtcheck $mt, resyncs $resyncs, daemon alive: $alive, touches on the copy: ${copied:-none}"
    grep '^error' "$d/mt.txt" > "$d/errors.txt"; show mtcheck "$d/errors.txt"; tail -n 1 "$d/mt.txt" > "$d/summary.txt"; show summary "$d/summary.txt"
    show daemon "$d/daemon.log"; show watch "$d/watch.log"
  fi
}

# ---------------------------------------------------------------- filter-latency

# h. Filter mode's forwarding latency: a touch in the middle of a panel kt
# makes (nobody's, so forwarded live: the config has only `back`, so no
# gesture may start there), 1,500 frames at 250 Hz; from each
# write to the panel to the kernel's timestamp of the copy's event.
check_filter_latency() {
  d=/tmp/filter-latency
  mkdir -p "$d"
  t0=$(uptime_s)
  # `back` alone: the example's swipe and pinch may start anywhere, so every
  # touch would be held for them first.
  printf '[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n' > "$d/back.toml"
  if ! start_daemon_with "$d/back.toml" auto "$d" --mode filter; then fail filter-latency "could not start the daemon"; stop_all; return 0; fi
  timeout -s KILL 60 kt fwd-latency 1500 > "$d/latency.txt" 2> "$d/latency.err"
  status=$?
  stop_all
  events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$d/latency.txt")
  # Every frame, but for a few the daemon may have read in one resync.
  if [ "$status" = 0 ] && [ "${events:-0}" -ge 1485 ]; then
    pass filter-latency "panel write -> copy's event: $(cat "$d/latency.txt") ($(since "$t0"))"
  else
    fail filter-latency "kt fwd-latency exited $status: $(cat "$d/latency.txt")"
    show kt "$d/latency.err"; show daemon "$d/daemon.log"
  fi
}

# ---------------------------------------------------------- filter-latency-rules

# h2. The same forwarding latency with the `[filter]` rules off and on: a
# panel that also declares ABS_MT_TOUCH_MAJOR (the finger 8 mm wide, so that
# palm_mm has a width to read), 1,500 frames each, first with `back` alone,
# then with ghost_touches = "quarantine", palm_mm = 30, stuck_after = 5 and
# max_contacts = 1 (none of which withholds the one moving finger). Each
# must forward at least 1,485 frames, with the rules its log says; the
# figures are for the notes, not asserted.
check_filter_latency_rules() {
  d=/tmp/filter-latency-rules
  mkdir -p "$d"
  t0=$(uptime_s)
  printf '[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n' > "$d/off.toml"
  { printf '[filter]\nghost_touches = "quarantine"\npalm_mm = 30\nstuck_after = 5\nmax_contacts = 1\n\n'; cat "$d/off.toml"; } > "$d/on.toml"
  results="" problems=""
  for rules in off on; do
    r="$d/$rules"
    mkdir -p "$r"
    if ! start_daemon_with "$d/$rules.toml" auto "$r" --mode filter; then problems="$problems the daemon (rules $rules) did not start;"; stop_all; continue; fi
    timeout -s KILL 60 kt fwd-latency 1500 --major > "$r/latency.txt" 2> "$r/latency.err"
    status=$?
    stop_all
    events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$r/latency.txt")
    in_force=$(sed -n 's/.*filter: the touches of .*(hold \([^)]*\)).*/\1/p' "$r/daemon.log" | head -n 1)
    case "$rules" in
      off) expected="0.08 s" ;;
      on) expected="0.08 s; max_contacts 1, palm_mm 30.0, stuck_after 5.0 s, ghost_touches quarantine" ;;
    esac
    if [ "$status" != 0 ] || [ "${events:-0}" -lt 1485 ] || [ "$in_force" != "$expected" ]; then
      problems="$problems rules $rules: kt fwd-latency exited $status: '$(cat "$r/latency.txt")', the daemon's hold and rules '$in_force' (expected '$expected');"
      show kt "$r/latency.err"; show daemon "$r/daemon.log"
    fi
    results="$results rules $rules: $(cat "$r/latency.txt");"
  done
  if [ -z "$problems" ]; then
    pass filter-latency-rules "panel write -> copy's event, 8 mm finger:$results ($(since "$t0"))"
  else
    fail filter-latency-rules "$problems"
  fi
}

# ----------------------------------------------------------------- flood

# c. A long recording written as fast as possible overruns the evdev
# client's buffer: SYN_DROPPED, the daemon resyncs (its log says so), and no
# transition is left half-way. Should the reader keep up for the first
# 0.5 s, it is frozen (SIGSTOP) for 0.3 s while the writer goes on, so that
# an overrun happens however the scheduler shares the guest's one CPU.
check_flood() {
  d=/tmp/flood
  mkdir -p "$d"
  t0=$(uptime_s)
  # example.toml with a small, long flight recorder.
  sed -e 's/^flight_recorder = [0-9]*/flight_recorder = 3600/' -e 's/^flight_recorder_bytes = [0-9]*/flight_recorder_bytes = 65536/' \
    /config/example.toml > "$d/config.toml"
  if ! start_daemon_with "$d/config.toml" auto "$d" || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /data/flood.events --speed 0 --hold-seconds 5 || ! wait_attached "$d/daemon.log" 1; then
    fail flood "could not start the daemon, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  player_go
  # Usually the writer outruns the reader on the guest's one CPU by itself
  # within a fraction of a second; if not, freeze the reader for 0.3 s while
  # the writer goes on.
  how="by itself"
  if ! kt wait "$d/daemon.log" SYN_DROPPED 0.5; then
    kill -STOP "$daemon_pid"
    usleep 300000
    kill -CONT "$daemon_pid"
    how="after a 0.3 s SIGSTOP of the daemon"
  fi
  kt wait "$d/player.log" 'written ' 60
  written=$(sed -n 's/^written //p' "$d/player.log")
  # Every transition must come to rest while the device is still there
  # (uinput-replay holds it 5 s): its removal would cancel a stuck one.
  life=0
  settle "$d/out.ndjson" 4 || life=1
  grep -q '^destroyed' "$d/player.log" && life=2
  kt lifecycle "$d/out.ndjson" > "$d/life.txt"
  alive=yes; kill -0 "$daemon_pid" 2>/dev/null || alive=no
  # The flight recorder, 64 KiB for an hour here, held no more than its
  # 4,096 events of the flood.
  transitiond dump --socket "$SOCK" -o "$d/dump.events" 2> "$d/dump.log"
  held=$(sed -n 's/.*: \([0-9]*\) events.*/\1/p' "$d/dump.log" | head -n 1)
  player_wait
  stop_all
  resyncs=$(grep -ciE 'syn_dropped|resync' "$d/daemon.log")
  began=$(kt count "$d/out.ndjson" '"type":"began"')
  lost=$(kt count "$d/out.ndjson" '"reason":"device-lost"')
  if [ "$resyncs" -gt 0 ] && [ "$life" = 0 ] && [ "$alive" = yes ] && [ "${held:-99999}" -le 4096 ]; then
    pass flood "${written:-?} events as fast as possible: the flight recorder held ${held} events (limit 4096); overrun $how, $resyncs resync(s) logged, e.g. '$(grep -m1 -iE 'syn_dropped|resync' "$d/daemon.log" | sed 's/.*\(SYN_DROPPED\)/\1/' | cut -c1-110)'; $began began, $lost cancelled as device-lost, all at rest before the device went away ($(since "$t0"))"
  else
    fail flood "resync log lines: $resyncs, every transition at rest within 4 s of the last write: $([ "$life" = 0 ] && echo yes || echo no), daemon alive: $alive, flight recorder events: ${held:-?} (at most 4096)"
    show dump "$d/dump.log"
    show daemon "$d/daemon.log"; show uinput-replay "$d/player.log"; show live "$d/life.txt"
  fi
}

# ---------------------------------------------------------------- record

# d. `transitiond record` of a uinput replay (ended by SIGINT), then
# `replay --fast` of that file: the same transitions as the host's
# reference of the original.
check_record() {
  d=/tmp/record
  mkdir -p "$d"
  t0=$(uptime_s)
  name=swipe-up-3-fingers
  if ! player_start "$d" "/recordings/$name.events" --speed 1 --hold-seconds 2; then
    fail record "uinput-replay did not create a device"; stop_all; return 0
  fi
  timeout -s KILL 60 transitiond record --device "$device" -o "$d/recorded.events" 2> "$d/record.log" &
  recorder=$!
  if ! kt wait "$d/record.log" 'recording ' 20; then
    fail record "transitiond record did not say it was recording"; show record "$d/record.log"
    stop "$recorder"; stop_all; return 0
  fi
  player_go
  kt wait "$d/player.log" 'written ' 30
  usleep 200000
  kill -INT "$recorder" 2>/dev/null
  rstatus=0
  wait "$recorder" || rstatus=$?
  pstatus=0
  player_wait || pstatus=$?
  stop_all
  if [ "$pstatus" != 0 ] || [ "$rstatus" != 0 ]; then
    fail record "uinput-replay exited $pstatus, record (SIGINT) exited $rstatus"
    show uinput-replay "$d/player.log"; show record "$d/record.log"; return 0
  fi
  if ! timeout -s KILL 60 transitiond replay --fast --json --config "$CONFIG" "$d/recorded.events" \
      > "$d/replayed.ndjson" 2> "$d/replay.err"; then
    fail record "replay --fast of the recorded file failed"; show replay "$d/replay.err"
    head -n 5 "$d/recorded.events" > "$d/head.txt"; show recorded "$d/head.txt"; return 0
  fi
  if kt compare "/refs/$name.ndjson" "$d/replayed.ndjson" > "$d/compare.txt"; then
    pass record "$name via $device, ended by SIGINT: $(grep -c '^E:' "$d/recorded.events") events recorded; $(cat "$d/compare.txt") ($(since "$t0"))"
  else
    fail record "$(head -n 1 "$d/compare.txt")"
    show compare "$d/compare.txt"; show record "$d/record.log"
  fi
}

# --------------------------------------------------------------- latency

# e. From the kernel's timestamp of each input event (the moment of the
# uinput write) to a subscriber reading the began/changed/ended line it
# produced.
# latency_run DIR CONFIG [ARGS...]: one such measurement of the stream
# (all of it, or its first $LR_EVENTS events when that is set); kt's result
# line (`events=N p50=… p99=…`) in DIR/latency.txt; 0 when at least 1,000
# events were measured.
latency_run() {
  lr_dir="$1"; lr_config="$2"; shift 2
  mkdir -p "$lr_dir"
  if ! start_daemon_with "$lr_config" auto "$lr_dir" "$@"; then info "could not start the daemon"; stop_all; return 1; fi
  timeout -s KILL 120 kt latency "$SOCK" 100 > "$lr_dir/latency.txt" 2> "$lr_dir/latency.err" &
  sub_pid=$!
  if [ -n "${LR_EVENTS:-}" ]; then set -- --destroy-after-events "$LR_EVENTS"; else set -- --hold-seconds 0.5; fi
  if ! player_start "$lr_dir" /data/stream.events --speed 1 "$@" || ! wait_attached "$lr_dir/daemon.log" 1; then
    info "could not start uinput-replay"; show daemon "$lr_dir/daemon.log"; stop_all; return 1
  fi
  player_go
  if ! player_wait; then
    info "uinput-replay failed"; show uinput-replay "$lr_dir/player.log"; stop_all; return 1
  fi
  stop "$sub_pid"; sub_pid=""
  stop_all
  lr_events=$(sed -n 's/^events=\([0-9]*\).*/\1/p' "$lr_dir/latency.txt")
  if [ "${lr_events:-0}" -lt 1000 ]; then
    info "fewer than 1000 events measured: $(cat "$lr_dir/latency.txt")"
    show latency "$lr_dir/latency.err"; show daemon "$lr_dir/daemon.log"; show uinput-replay "$lr_dir/player.log"
    return 1
  fi
}

check_latency() {
  d=/tmp/latency
  t0=$(uptime_s)
  if latency_run "$d" "$CONFIG"; then
    pass latency "uinput write -> subscriber: $(cat "$d/latency.txt") ($(since "$t0"))"
  else
    fail latency "see above"
  fi
}

# e2. What the flight recorder and the metrics cost on that path: the same
# measurement (the stream's first 4,500 events, about 6 s) with both off (`[input]
# flight_recorder = 0`, `[metrics] enabled = false`), both on (the
# recorder's default 30 s, a metrics listener, the latency histogram), and
# both on with the listener scraped five times a second by a wget in the
# guest (which shares the guest's one CPU with the daemon), and both on
# with the same wget asking for /healthz instead (the same processes and
# connections, no metrics rendered), in the order off, on, scraped, probed,
# probed, scraped, on, off. Passes when every run measured; the figures are
# for the notes.
check_latency_costs() {
  d=/tmp/latency-costs
  mkdir -p "$d"
  t0=$(uptime_s)
  ifconfig lo 127.0.0.1 up 2>/dev/null || ip link set lo up 2>/dev/null
  sed -e 's/^flight_recorder = 30 /flight_recorder = 0  /' \
      -e 's|^enabled = true \( *# serve /metrics\)|enabled = false\1|' "$CONFIG" > "$d/off.toml"
  if [ "$(grep -c '^flight_recorder = 0 \|^enabled = false .*# serve /metrics' "$d/off.toml")" != 2 ]; then
    fail latency-costs "could not turn the recorder and the metrics off in a copy of $CONFIG"; return 0
  fi
  results=""
  for mode in off on scraped probed probed scraped on off; do
    run="$d/$mode-$(uptime_s)"
    case "$mode" in
      scraped|probed)
        path=metrics; [ "$mode" = probed ] && path=healthz
        ( while :; do wget -q -O /dev/null "http://127.0.0.1:9464/$path" 2>/dev/null; usleep 200000; done ) &
        scraper=$!
        LR_EVENTS=4500 latency_run "$run" "$CONFIG" --metrics 127.0.0.1:9464; status=$?
        kill "$scraper" 2>/dev/null; wait "$scraper" 2>/dev/null ;;
      on) LR_EVENTS=4500 latency_run "$run" "$CONFIG" --metrics 127.0.0.1:9464; status=$? ;;
      off) LR_EVENTS=4500 latency_run "$run" "$d/off.toml"; status=$? ;;
    esac
    if [ "$status" != 0 ]; then fail latency-costs "a run with both $mode failed"; return 0; fi
    results="$results $mode:$(sed -n 's/.*p50=\([0-9.]*\).*p99=\([0-9.]*\).*/\1,\2/p' "$run/latency.txt")"
  done
  pass latency-costs "p50,p99 (µs) by run:$results ($(since "$t0"))"
}

# --------------------------------------------------------------- metrics

# metric FILE NAME: the value of one sample line (`NAME value`, NAME with
# its labels as written), empty if there is none.
metric() { awk -v n="$2" '$1 == n { print $2; exit }' "$1"; }
# scrape FILE: GET /metrics of the daemon's metrics listener into FILE.
scrape() { timeout 5 wget -q -O "$1" http://127.0.0.1:9464/metrics; }

# i. Prometheus metrics of live input: a panel attached (attached 1, not
# waiting), a whole `back` gesture through it and the panel gone: the
# ended counter says what the stream said, input events and frames were
# counted, the input-to-write histogram has observations of sensible size,
# the loss is counted and the daemon waits again, the flight recorder holds
# what it kept.
check_metrics() {
  d=/tmp/metrics
  mkdir -p "$d"
  t0=$(uptime_s)
  ifconfig lo 127.0.0.1 up 2>/dev/null || ip link set lo up 2>/dev/null
  if ! start_daemon "$d" --metrics 127.0.0.1:9464 || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /recordings/back-drag-finish.events --speed 1 --hold-seconds 0.3 \
      || ! wait_attached "$d/daemon.log" 1; then
    fail metrics "could not start the daemon, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  scrape "$d/attached.txt" || { fail metrics "no /metrics while a panel is attached"; show daemon "$d/daemon.log"; stop_all; return 0; }
  player_go
  player_wait
  settle "$d/out.ndjson" 10
  if ! kt wait "$d/daemon.log" 'lost /dev/input' 10 || ! scrape "$d/after.txt"; then
    fail metrics "no loss logged, or no /metrics after the panel went"; show daemon "$d/daemon.log"; stop_all; return 0
  fi
  stop_all
  kt lifecycle "$d/out.ndjson" > "$d/life.txt"
  ended=$(metric "$d/after.txt" 'transitiond_transitions_ended_total{transition="back",decision="finish",reason="released"}')
  count=$(metric "$d/after.txt" transitiond_input_to_write_seconds_count)
  sum=$(metric "$d/after.txt" transitiond_input_to_write_seconds_sum)
  events=$(metric "$d/after.txt" transitiond_input_events_total)
  frames=$(metric "$d/after.txt" transitiond_input_frames_total)
  problems=""
  [ "$(cat "$d/life.txt")" = "back: began ended(finish,released) finished" ] || problems="$problems stream '$(cat "$d/life.txt")';"
  [ "$(metric "$d/attached.txt" transitiond_input_devices_attached)" = 1.0 ] || problems="$problems attached not 1 while attached;"
  [ "$(metric "$d/attached.txt" transitiond_input_waiting)" = 0.0 ] || problems="$problems waiting not 0 while attached;"
  [ "$ended" = 1 ] || problems="$problems ended{back,finish,released} '$ended';"
  [ "${frames:-0}" -gt 100 ] && [ "${events:-0}" -gt "${frames:-0}" ] || problems="$problems events '$events' frames '$frames';"
  [ "${count:-0}" -gt 10 ] || problems="$problems latency count '$count';"
  awk -v s="${sum:-x}" -v c="${count:-0}" 'BEGIN { exit !(c > 0 && s / c > 0 && s / c < 0.5) }' \
    || problems="$problems latency mean '$sum'/'$count';"
  [ "$(metric "$d/after.txt" transitiond_input_devices_lost_total)" = 1 ] || problems="$problems lost not 1;"
  [ "$(metric "$d/after.txt" transitiond_input_waiting)" = 1.0 ] || problems="$problems waiting not 1 after the loss;"
  bytes=$(metric "$d/after.txt" transitiond_flight_recorder_bytes)
  awk -v b="${bytes:-0}" 'BEGIN { exit !(b > 0) }' || problems="$problems flight recorder bytes '$bytes';"
  if [ -z "$problems" ]; then
    pass metrics "ended 1, $events events, $frames frames, $count latencies (mean $(awk -v s="$sum" -v c="$count" 'BEGIN { printf "%.0f", s / c * 1e6 }') µs), lost 1, recorder $bytes bytes ($(since "$t0"))"
  else
    fail metrics "$problems"
    show metrics "$d/after.txt" 40; show daemon "$d/daemon.log"
  fi
}

# ---------------------------------------------------------- panel-health

# field FILE NAME: the value of `"NAME":VALUE` in the first line of FILE
# (a hello), empty if there is none.
field() { head -n 1 "$1" | grep -o "\"$2\":[^,}]*" | head -n 1 | cut -d: -f2; }
# between VALUE LOW HIGH: LOW <= VALUE <= HIGH.
between() { awk -v v="${1:-x}" -v a="$2" -v b="$3" 'BEGIN { exit !(v != "x" && v + 0 >= a && v + 0 <= b) }'; }
# snapshot OUT: a fresh client's hello (what `state` says) into OUT.
snapshot() {
  timeout -s KILL 20 transitiond subscribe --socket "$SOCK" --json > "$1" 2> "$1.err" &
  snap_pid=$!
  kt wait "$1" '"type":"hello"' 10
  status=$?
  stop "$snap_pid"
  return "$status"
}

# k. Panel health: a uinput panel reporting at 120 frames/s while a finger
# moves, then at 25 (Tests/kernel/make-health-recording.py). After the fast
# part (known by `back` finishing), `hello` says the panel is healthy at
# about 120 Hz; after the slow part it is `degraded` at about 25 Hz, and the
# daemon logged that once. Rates from the kernel's timestamps, so on the
# virtual clock.
check_panel_health() {
  d=/tmp/panel-health
  mkdir -p "$d"
  t0=$(uptime_s)
  if ! start_daemon "$d" || ! start_subscriber "$d/out.ndjson" \
      || ! player_start "$d" /data/health.events --speed 1 --hold-seconds 5 \
      || ! wait_attached "$d/daemon.log" 1; then
    fail panel-health "could not start the daemon, a subscriber and uinput-replay"
    show daemon "$d/daemon.log"; stop_all; return 0
  fi
  player_go
  problems=""
  if ! kt wait "$d/out.ndjson" '"type":"finished"' 30 || ! snapshot "$d/fast.ndjson"; then
    problems="$problems no finished back, or no hello, after the fast part;"
  fi
  if ! kt wait "$d/player.log" 'written ' 60 || ! snapshot "$d/slow.ndjson"; then
    problems="$problems no end of the recording, or no hello, after the slow part;"
  fi
  player_wait
  stop_all
  fast_rate=$(field "$d/fast.ndjson" report_rate_hz)
  fast_p5=$(field "$d/fast.ndjson" report_rate_p5_hz)
  fast_jitter=$(field "$d/fast.ndjson" jitter_ms)
  slow_rate=$(field "$d/slow.ndjson" report_rate_hz)
  slow_p5=$(field "$d/slow.ndjson" report_rate_p5_hz)
  slow_jitter=$(field "$d/slow.ndjson" jitter_ms)
  said=$(kt count "$d/daemon.log" 'below min_report_rate')
  [ "$(field "$d/fast.ndjson" degraded)" = false ] || problems="$problems fast part degraded '$(field "$d/fast.ndjson" degraded)';"
  between "$fast_rate" 115 125 || problems="$problems fast median '$fast_rate' Hz;"
  between "$fast_p5" 100 125 || problems="$problems fast p5 '$fast_p5' Hz;"
  [ "$(field "$d/slow.ndjson" degraded)" = true ] || problems="$problems slow part not degraded '$(field "$d/slow.ndjson" degraded)';"
  between "$slow_rate" 24 26 || problems="$problems slow median '$slow_rate' Hz;"
  between "$slow_p5" 20 26 || problems="$problems slow p5 '$slow_p5' Hz;"
  [ "$said" = 1 ] || problems="$problems degraded logged $said times;"
  if [ -z "$problems" ]; then
    pass panel-health "120 frames/s: median $fast_rate Hz, p5 $fast_p5 Hz, jitter $fast_jitter ms, healthy; 25 frames/s: median $slow_rate Hz, p5 $slow_p5 Hz, jitter $slow_jitter ms, degraded, logged once ($(since "$t0"))"
  else
    fail panel-health "$problems"
    show fast "$d/fast.ndjson" 1; show slow "$d/slow.ndjson" 1; show daemon "$d/daemon.log"
  fi
}

# ------------------------------------------------------------------ main

t_all=$(uptime_s)
check_boot   # always: it loads the modules the others need
if [ -c /dev/uinput ]; then
  wanted replay && check_replay
  wanted device-lost && check_device_lost
  wanted two-panels && check_two_panels
  wanted filter && check_filter
  wanted dump && check_dump
  wanted metrics && check_metrics
  wanted flood && check_flood
  wanted record && check_record
  wanted latency && check_latency
  wanted latency-costs && check_latency_costs
  wanted filter-flood && check_filter_flood
  wanted filter-latency && check_filter_latency
  wanted filter-latency-rules && check_filter_latency_rules
  wanted panel-health && check_panel_health
fi
stop_all
info "checks took $(since "$t_all") in the guest"
echo "KERNELTEST DONE passed=$passed failed=$failed"
