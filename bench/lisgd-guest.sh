#!/bin/bash
# The lisgd comparison's guest side (bench/lisgd.sh boots it): systemd is
# PID 1 in the tier's Debian 12 root, with lisgd and evemu-tools added.
# Per round, for each of lisgd, transitiond without a client and
# transitiond with one `subscribe --json` client (the order turning each
# round, so that neither goes first every time): a fresh uinput touchscreen
# from the recording's description (evemu-device), the daemon started on it
# and waited for until it holds the node open, ~2 s to settle, the idle
# readings, the recording played in real time (evemu-play), ~1 s for the
# animations to end, the readings again. One `KTBENCH run …` line per run on
# the serial console, `KTBENCH INFO …` for what went wrong, `KTBENCH DONE`
# last; then the guest powers off.
#
# Kernel command line: ktbench=lisgd (the unit's condition),
# ktbench.rounds=N (default 3).
out=/dev/ttyS0
B=/usr/local/lib/ktbench
W=/run/ktbench
EVENTS=$B/swipes.events
CONFIG=$B/transitiond.toml
SOCK=$W/transitiond.sock
METRICS=127.0.0.1:9464
info() { echo "KTBENCH INFO $*" > "$out"; }
show() { sed "s/^/KTBENCH INFO   $1: /" "$2" 2>/dev/null | tail -n "${3:-15}" > "$out"; }
finish() {
  echo "KTBENCH DONE $*" > "$out"
  sync
  systemctl poweroff --force --force
}
ROUNDS=$(sed -n 's/.*ktbench\.rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
ROUNDS=${ROUNDS:-3}
CLK_TCK=$(getconf CLK_TCK)

# wait_for SECONDS COMMAND...: until COMMAND succeeds (every 0.1 s).
wait_for() {
  local limit=$(( $1 * 10 )) i=0; shift
  until "$@" > /dev/null 2>&1; do
    i=$((i + 1)); [ "$i" -le "$limit" ] || return 1
    sleep 0.1
  done
}
# holds PID NODE: the process has NODE open (one of its fds links to it).
holds() {
  local fd
  for fd in /proc/"$1"/fd/*; do
    [ "$(readlink "$fd" 2>/dev/null)" = "$2" ] && return 0
  done
  return 1
}
has_line() { grep -q "$2" "$1" 2>/dev/null; }

# sample PID: "cpu_us sched_ns rss_kb threads hwm_kb child_us" of the
# process now. utime+stime (and the reaped children's cutime+cstime) are in
# clock ticks; schedstat's first field is the nanoseconds each thread ran,
# summed over the threads alive now.
sample() {
  local pid=$1 stat rest sched=0 t
  stat=$(cat "/proc/$pid/stat") || return 1
  rest=${stat##*) }  # the fields after the command name (which may hold spaces)
  set -- $rest       # field 3 of stat is $1 here
  local ticks=$(( ${12} + ${13} )) child=$(( ${14} + ${15} ))
  for t in /proc/"$pid"/task/*/schedstat; do
    read -r ns _ < "$t" 2>/dev/null && sched=$((sched + ns))
  done
  local rss threads hwm
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
  threads=$(awk '/^Threads:/ { print $2 }' "/proc/$pid/status")
  hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
  echo "$((ticks * 1000000 / CLK_TCK)) $sched $rss $threads $hwm $((child * 1000000 / CLK_TCK))"
}

# stop PID...: SIGTERM, SIGKILL for any still there 5 s later; each waited
# for (this shell's children; an unreaped child answers kill -0, so the
# wait is what tells that it has gone).
stop() {
  local pid killer
  for pid in "$@"; do [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; done
  for pid in "$@"; do
    [ -n "$pid" ] || continue
    (sleep 5; kill -KILL "$pid" 2>/dev/null) &
    killer=$!
    wait "$pid" 2>/dev/null
    kill "$killer" 2>/dev/null; wait "$killer" 2>/dev/null
  done
}

# Only the processes under test: the packaged service and its socket would
# take the panel (device = "auto") and hold a socket.
systemctl stop transitiond.socket transitiond.service transitiond-websocket.socket transitiond-metrics.socket 2>/dev/null
mkdir -p "$W"
insmod "$B/evdev.ko" 2>/dev/null; insmod "$B/uinput.ko" 2>/dev/null
[ -c /dev/uinput ] || wait_for 10 test -c /dev/uinput || { info "no /dev/uinput"; finish failed; }
EVENT_COUNT=$(grep -c '^E:' "$EVENTS")
SWIPES=$(grep -c 'ABS_MT_TRACKING_ID *-1$' "$EVENTS")
RECORDING_S=$(awk '/^E:/ { t = $2 } END { printf "%.2f", t }' "$EVENTS")
PLAY_LIMIT=$(awk -v t="$RECORDING_S" 'BEGIN { printf "%d", 3 * t + 60 }')
info "rounds=$ROUNDS events=$EVENT_COUNT swipes=$SWIPES clk_tck=$CLK_TCK kernel=$(uname -r) cpus=$(nproc)"
info "$(dpkg-query -W -f '${Package} ${Version}\n' lisgd evemu-tools libinput10 2>/dev/null | paste -sd,), transitiond $(transitiond --version 2>&1 | head -n 1)"

failed=0
# run NAME ROUND: one measured run.
run() {
  local name=$1 round=$2 dev_pid="" pid="" sub_pid="" node="" sub_before="" sub_after=""
  rm -f "$W"/*
  # A fresh panel per run: each daemon meets a new device, as after a
  # replug, and no kernel state (slots, pointer emulation) carries over.
  evemu-device "$EVENTS" > "$W/device.out" 2>&1 &
  dev_pid=$!
  if ! wait_for 20 has_line "$W/device.out" '/dev/input/event'; then
    info "$name round $round: evemu-device made no node"; show evemu-device "$W/device.out"
    stop "$dev_pid"; failed=$((failed + 1)); return
  fi
  node=$(grep -o '/dev/input/event[0-9]*' "$W/device.out" | head -n 1)
  # libinput (lisgd) takes ID_INPUT_TOUCHSCREEN from udev's database.
  udevadm settle --timeout=20
  case $name in
    lisgd)
      : > "$W/lisgd.count"
      lisgd -d "$node" -w 1000 -h 565 -m 2000 -g "1,LR,L,*,R,printf x >> $W/lisgd.count" > "$W/daemon.log" 2>&1 &
      pid=$! ;;
    transitiond*|before*)
      # before*: the baseline build (bench/lisgd.sh BASELINE=), the same way.
      local daemon=transitiond
      case $name in before*) daemon=$B/transitiond-before ;; esac
      "$daemon" run --device "$node" --config "$CONFIG" --metrics "$METRICS" > "$W/daemon.log" 2>&1 &
      pid=$! ;;
  esac
  if ! wait_for 30 holds "$pid" "$node"; then
    info "$name round $round: the daemon did not open $node in 30 s"; show "$name" "$W/daemon.log"
    stop "$pid" "$dev_pid"; failed=$((failed + 1)); return
  fi
  if [ "${name%+subscriber}" != "$name" ]; then
    wait_for 20 test -S "$SOCK"
    transitiond subscribe --json --socket "$SOCK" > "$W/subscriber.out" 2> "$W/subscriber.err" &
    sub_pid=$!
    if ! wait_for 20 has_line "$W/subscriber.out" '"type":"hello"'; then
      info "$name round $round: no hello"; show subscriber "$W/subscriber.err"; show "$name" "$W/daemon.log"
      stop "$sub_pid" "$pid" "$dev_pid"; failed=$((failed + 1)); return
    fi
  fi
  sleep 2  # settle: start-up's allocations done, timers at their idle pace
  local before after t0 t1
  before=$(sample "$pid")
  [ -z "$sub_pid" ] || sub_before=$(sample "$sub_pid")
  t0=$(cut -d' ' -f1 /proc/uptime)
  # Bounded: three times the recording's length and a minute (under TCG
  # evemu-play runs some 30 % slow).
  timeout -k 5 "$PLAY_LIMIT" evemu-play "$node" < "$EVENTS" > "$W/play.out" 2>&1 \
    || info "$name round $round: evemu-play ended with status $? (124: stopped after $PLAY_LIMIT s)"
  t1=$(cut -d' ' -f1 /proc/uptime)
  sleep 1  # the last swipe's completion animation (0.4 s at most) ends
  after=$(sample "$pid")
  [ -z "$sub_pid" ] || sub_after=$(sample "$sub_pid")
  if [ -z "$before" ] || [ -z "$after" ] || { [ -n "$sub_pid" ] && { [ -z "$sub_before" ] || [ -z "$sub_after" ]; }; }; then
    info "$name round $round: a process under test ended before its last reading"
    show "$name" "$W/daemon.log"; [ -z "$sub_pid" ] || show subscriber "$W/subscriber.err"
    stop "$sub_pid" "$pid" "$dev_pid"; failed=$((failed + 1)); return
  fi
  # The threads by name (comm), to tell what each is for: read with the
  # readings, before the scrape below (which may start a worker thread).
  local thread_names
  thread_names=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | tr ' ' '_' | paste -sd, -)
  # What was recognised, read after the CPU readings (a scrape costs CPU).
  local gestures sub_fields=""
  case $name in
    lisgd) gestures=$(stat -c %s "$W/lisgd.count") ;;
    transitiond*|before*)
      gestures=$(curl -s --max-time 10 "http://$METRICS/metrics" \
        | awk '/^transitiond_transitions_ended_total\{/ && /decision="finish"/ { s += $NF } END { print s + 0 }') ;;
  esac
  if [ -n "$sub_pid" ]; then
    set -- $sub_before; local s_cpu0=$1 s_sched0=$2
    set -- $sub_after
    sub_fields=" sub_cpu_us=$(($1 - s_cpu0)) sub_sched_ns=$(($2 - s_sched0)) sub_rss_peak_kb=$5 sub_finishes=$(grep -c '"decision":"finish"' "$W/subscriber.out") sub_lines=$(wc -l < "$W/subscriber.out")"
  fi
  set -- $before; local cpu0=$1 sched0=$2 rss_idle=$3 child0=$6
  set -- $after
  echo "KTBENCH run name=$name round=$round events=$EVENT_COUNT swipes=$SWIPES cpu_us=$(($1 - cpu0)) sched_ns=$(($2 - sched0)) rss_idle_kb=$rss_idle rss_after_kb=$3 rss_peak_kb=$5 threads=$4 thread_names=$thread_names child_cpu_us=$(($6 - child0)) gestures=$gestures recording_s=$RECORDING_S play_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')$sub_fields" > "$out"
  if [ "$gestures" != "$SWIPES" ]; then
    show "$name" "$W/daemon.log" 10
    show evemu-play "$W/play.out" 5
  fi
  stop "$sub_pid" "$pid" "$dev_pid"
}

names="lisgd transitiond transitiond+subscriber"
[ ! -x "$B/transitiond-before" ] || names="$names before before+subscriber"
count=$(echo $names | wc -w)
for round in $(seq 1 "$ROUNDS"); do
  # Round r starts with the r-th name (a rotation): each goes first once
  # every $count rounds.
  first=$(( (round - 1) % count + 1 ))
  order=$(echo $names $names | cut -d' ' -f"$first-$(( first + count - 1 ))")
  for name in $order; do run "$name" "$round"; done
done
finish "failed=$failed"
