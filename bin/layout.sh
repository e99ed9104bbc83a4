# The files an installation of transitiond consists of, laid out under a
# root folder (sourced, not run): used by bin/install (into / with prefix
# /usr/local) and bin/package (into a .deb's tree with prefix /usr).
#
# transitiond_layout ROOT PREFIX UNITDIR SYSUSERSDIR BINARY
#   ROOT        the folder the tree goes into ("/" to install)
#   PREFIX      /usr (a package) or /usr/local (bin/install)
#   UNITDIR     where the systemd units go (/lib/systemd/system, /etc/systemd/system)
#   SYSUSERSDIR where the sysusers.d entry goes (/usr/lib/sysusers.d, /etc/sysusers.d)
#   BINARY      the release binary to install
# The config goes to /etc/transitiond/transitiond.toml unless one is there.
transitiond_layout() {
  local root="$1" prefix="$2" unitdir="$3" sysusersdir="$4" binary="$5"
  local src
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  install -d -m 755 "$root$prefix/bin" "$root$unitdir" "$root$sysusersdir" "$root/etc/transitiond" \
    "$root$prefix/share/man/man1" "$root$prefix/share/man/man5" \
    "$root$prefix/share/bash-completion/completions" "$root$prefix/share/zsh/vendor-completions" \
    "$root$prefix/share/fish/vendor_completions.d" "$root$prefix/share/doc/transitiond"
  install -m 755 "$binary" "$root$prefix/bin/transitiond"
  # The units name /usr/bin/transitiond; elsewhere they name where it is.
  sed "s|/usr/bin/transitiond|$prefix/bin/transitiond|" "$src/systemd/transitiond.service" \
    > "$root$unitdir/transitiond.service"
  install -m 644 "$src/systemd/transitiond.socket" "$root$unitdir/transitiond.socket"
  install -m 644 "$src/systemd/transitiond-websocket.socket" "$root$unitdir/transitiond-websocket.socket"
  install -m 644 "$src/systemd/transitiond-metrics.socket" "$root$unitdir/transitiond-metrics.socket"
  # The kiosk's Prometheus agent (contrib/prometheus): its unit names the
  # renderer and the template where this prefix puts them.
  install -d -m 755 "$root$prefix/libexec/transitiond" "$root$prefix/share/transitiond/prometheus"
  install -m 755 "$src/contrib/prometheus/transitiond-prometheus-agent-config" "$root$prefix/libexec/transitiond/"
  install -m 644 "$src/contrib/prometheus/agent.yml" "$src/contrib/prometheus/rules.yml" "$src/contrib/prometheus/rules_test.yml" \
    "$root$prefix/share/transitiond/prometheus/"
  sed -e "s|/usr/libexec/transitiond/|$prefix/libexec/transitiond/|g" -e "s|/usr/share/transitiond/|$prefix/share/transitiond/|g" \
    "$src/systemd/transitiond-prometheus-agent.service" > "$root$unitdir/transitiond-prometheus-agent.service"
  chmod 644 "$root$unitdir/transitiond-prometheus-agent.service"
  # The MQTT bridge (clients/python's transitiond-mqtt, installed apart
  # with pip): its unit names the virtual environment the docs make.
  install -m 644 "$src/systemd/transitiond-mqtt.service" "$root$unitdir/transitiond-mqtt.service"
  chmod 644 "$root$unitdir/transitiond.service"
  install -m 644 "$src/systemd/sysusers.d/transitiond.conf" "$root$sysusersdir/transitiond.conf"
  if [ ! -e "$root/etc/transitiond/transitiond.toml" ]; then
    install -m 644 "$src/config/kiosk.toml" "$root/etc/transitiond/transitiond.toml"
  fi
  gzip -9n -c "$src/man/transitiond.1" > "$root$prefix/share/man/man1/transitiond.1.gz"
  gzip -9n -c "$src/man/transitiond.toml.5" > "$root$prefix/share/man/man5/transitiond.toml.5.gz"
  chmod 644 "$root$prefix/share/man/man1/transitiond.1.gz" "$root$prefix/share/man/man5/transitiond.toml.5.gz"
  # A completion file is sourced, not run: no #! line.
  "$binary" --generate-completion-script bash | sed '1{/^#!/d}' > "$root$prefix/share/bash-completion/completions/transitiond"
  "$binary" --generate-completion-script zsh > "$root$prefix/share/zsh/vendor-completions/_transitiond"
  "$binary" --generate-completion-script fish > "$root$prefix/share/fish/vendor_completions.d/transitiond.fish"
  chmod 644 "$root$prefix/share/bash-completion/completions/transitiond" \
    "$root$prefix/share/zsh/vendor-completions/_transitiond" "$root$prefix/share/fish/vendor_completions.d/transitiond.fish"
  install -m 644 "$src/docs/kiosk.md" "$src/docs/kiosk-web.md" "$src/docs/metrics.md" "$src/docs/protocol.md" "$src/docs/snap-points.md" "$src/docs/fleet.md" \
    "$src/config/example.toml" \
    "$root$prefix/share/doc/transitiond/"
  transitiond_link_docs "$root$prefix/share/doc/transitiond"
}

# transitiond_link_docs DOCDIR — the docs go flat into DOCDIR
# (share/doc/transitiond, of the package and of bin/install), where a link
# written for the sources (../clients/js/README.md, ../config/demo.toml)
# leads nowhere. In the installed copies every relative link must resolve:
# an image of docs/ is installed with them (images/…), a link to an
# installed file names it where it is, and a link to anything else becomes
# its text and the path in the sources. A mention of docs/NAME.md is made
# NAME.md when NAME.md is installed.
transitiond_link_docs() {
  local doc="$1" src f
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  for f in "$doc"/*.md "$doc"/*.toml; do
    [ -f "$f" ] || continue
    perl -0777 -e '
      my ($doc, $src, $shipped) = splice(@ARGV, 0, 3);
      my $markdown = $ARGV[0] =~ /\.md$/;
      my %shipped = map { $_ => 1 } split /,/, $shipped;
      local $_ = <>;
      # docs/…/x → the path in the sources, from the docs folder.
      sub resolve {
        my @parts = ("docs");
        for my $p (split m{/}, shift) {
          next if $p eq "." || $p eq "";
          if ($p eq "..") { pop @parts } else { push @parts, $p }
        }
        return join "/", @parts;
      }
      $markdown and s{(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(([^()\s]+)\)}{
        my ($bang, $text, $target) = ($1, $2, $3);
        my ($path, $anchor) = $target =~ m{^([^#]*)(#.*)?$};
        $anchor //= "";
        if ($target =~ m{^[a-z][a-z0-9+.-]*:}i || $path eq "") {
          "$bang\[$text\]($target)";                      # a URL, or a place in this file
        } else {
          my $source = resolve($path);
          (my $name = $source) =~ s{^(docs|config)/}{};
          if ($shipped{$name}) {
            "$bang\[$text\]($name$anchor)";
          } elsif ($source =~ m{^docs/images/[^/]+$} && -f "$src/$source") {
            system("install", "-D", "-m", "644", "$src/$source", "$doc/$name") == 0 or die "cannot ship $source\n";
            "$bang\[$text\]($name)";
          } elsif ($bang) {
            $text;
          } else {
            (my $plain = $source) =~ s{/$}{};
            $text =~ /\Q$plain\E/ ? "$text (in the transitiond sources)" : "$text (`$plain` in the transitiond sources)";
          }
        }
      }ge;
      s{(?<![\w./-])docs/([\w.-]+\.md)\b}{ $shipped{$1} ? $1 : "docs/$1" }ge;
      print;
    ' "$doc" "$src" "$(cd "$doc" && ls | paste -sd, -)" "$f" > "$f.new"
    mv "$f.new" "$f"
    chmod 644 "$f"
  done
}

# Builds the release binary (static Swift standard library) and prints its
# path; $TRANSITIOND_BINARY names one to use instead (the tests' debug build).
transitiond_release_binary() {
  if [ -n "${TRANSITIOND_BINARY:-}" ]; then echo "$TRANSITIOND_BINARY"; return; fi
  local src
  src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  # shellcheck source=bin/setup.sh
  source "$src/bin/setup.sh"
  transitiond_build_release || return
  echo "$src/.build/release/transitiond"
}
