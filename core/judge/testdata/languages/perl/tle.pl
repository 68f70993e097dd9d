use strict;
use warnings;

my ($a, $b) = split ' ', <STDIN>;
my $x = 0;
while (1) { $x = ($x * 31 + 7) % 1000003; }
