module github.com/xlajit/xlajit

go 1.26
