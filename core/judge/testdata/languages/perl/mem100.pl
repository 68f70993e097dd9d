use strict;
use warnings;

my ($a, $b) = split ' ', <STDIN>;
my $n = 100 << 20;
my $s = "x" x $n;
print $a + $b + length($s) - (100 << 20), "\n";
