#!/usr/bin/perl
# tapcheck.pl LABEL < TAP: judge the TAP that one producer (a host test
# program, a guest boot's console) printed, and print one line per result:
#   PASS LABEL: NAME | FAIL LABEL: NAME | SKIP LABEL: NAME (REASON)
# tests/run.sh counts those lines.
#
# The input may hold several TAP streams one after another (a guest runs
# several test programs). Every producer prints its plan first, so a stream
# begins at its plan line ("1..N"); what stands before the first plan
# belongs to no stream. Each stream is parsed by TAP::Parser (Debian's perl),
# and these count as failures, one FAIL line each:
#   - a result that no plan announced (results before the first plan);
#   - every result a plan announced but the stream never printed (a program
#     killed, crashed or bailed out halfway);
#   - results beyond the plan, duplicate or out-of-order numbers, any other
#     parse error TAP::Parser finds;
#   - "Bail out!" anywhere;
#   - a SKIP without a reason;
#   - no result at all in the whole input.
# A failed result marked "# TODO reason" is a failure like any other: TAP
# lets a producer call a failure known, and a known failure still fails
# here (issue 28: it used to count as a SKIP, so any producer could hide a
# failure behind it). A passing one is a PASS that says its TODO is done.
use strict;
use warnings;
use TAP::Parser;

my $label = shift @ARGV // die "usage: tapcheck.pl LABEL < TAP\n";
my (@streams, $cur);
$cur = { planned => 0, lines => [] };
push @streams, $cur;
while (my $line = <STDIN>) {
	chomp $line;
	$line =~ s/\r$//;
	next if $line =~ /^TAP version \d+\s*$/;
	if ($line =~ /^1\.\.\d+/) {
		$cur = { planned => 1, lines => [] };
		push @streams, $cur;
	}
	push @{$cur->{lines}}, $line;
}

my $results = 0;
sub out { print "$_[0] $label: $_[1]\n"; }

for my $s (@streams) {
	my @lines = @{$s->{lines}};
	# Only TAP that matters: console noise before the first plan is
	# ignored unless it holds results or a bail-out.
	next if !$s->{planned} && !grep { /^(not )?ok\b/ || /^Bail out!/ } @lines;
	my $parser = TAP::Parser->new({ tap => join("\n", @lines) . "\n" });
	while (my $r = $parser->next) {
		if ($r->is_bailout) {
			out('FAIL', 'Bail out! ' . $r->explanation);
			$results++;
		} elsif ($r->is_test) {
			my $name = $r->description;
			$name =~ s/^\s*-\s*//;
			$name = "(result " . $r->number . " has no name)" if $name eq '';
			$results++;
			if ($r->has_skip) {
				my $why = $r->explanation;
				if (!$r->is_actual_ok) {
					out('FAIL', "$name # SKIP on a failed result");
				} elsif ($why =~ /\S/) {
					out('SKIP', "$name ($why)");
				} else {
					out('FAIL', "$name # SKIP without a reason");
				}
			} elsif ($r->has_todo) {
				my $why = $r->explanation;
				if ($r->is_actual_ok) {
					out('PASS', "$name (TODO passes now: $why)");
				} else {
					out('FAIL', "$name # TODO (a known failure is a failure): $why");
				}
			} elsif ($r->is_actual_ok) {
				out('PASS', $name);
			} else {
				out('FAIL', $name);
			}
		}
	}
	if (!$s->{planned}) {
		my $n = $parser->tests_run;
		out('FAIL', "$n result(s) before any plan (every producer prints 1..N first)") if $n;
		next;
	}
	if (defined $parser->skip_all) {
		my $why = $parser->skip_all;
		$results++;
		out('FAIL', $parser->tests_run . " results after a plan that skips all")
			if $parser->tests_run;
		if ($why =~ /\S/ && $why ne '1' && $why ne '(no reason given)') {
			out('SKIP', "all tests of a stream skipped ($why)");
		} else {
			out('FAIL', "a stream skipped all its tests without a reason");
		}
		next;
	}
	my ($planned, $run) = ($parser->tests_planned // 0, $parser->tests_run);
	for my $i ($run + 1 .. $planned) {
		out('FAIL', "result $i missing (planned $planned, reported $run)");
		$results++;
	}
	out('FAIL', "$run results where the plan says $planned") if $run > $planned;
	# The plan mismatch is reported above; any other error once each.
	for my $e ($parser->parse_errors) {
		next if $e =~ /^Bad plan\./;
		out('FAIL', "TAP error: $e");
	}
}
out('FAIL', 'no test reported') unless $results;
