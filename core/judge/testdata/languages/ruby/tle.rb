a, b = gets.split.map(&:to_i)
x = a
loop { x = (x * 31 + 7) % 1_000_003 }
