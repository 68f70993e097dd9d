a, b = gets.split.map(&:to_i)
def sum(x, y)
  x + y
puts sum(a, b)
